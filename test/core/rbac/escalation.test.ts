// Escalation prevention as the store runs it: on the object each write would store, before commit.
// Every refusal leaves the store as it was.
import { describe, expect, it } from 'vitest';
import { executeWrite, type WriteRequest, type WriteStore } from '../../../core/writes';
import { lookupGroupResource, type ResourceType } from '../../../core/registry';
import { escalationGuard, SYSTEM_GRANT, type EscalationGrant } from '../../../core/rbac/escalation';
import { RbacPolicy, type UserInfo } from '../../../core/rbac/authorize';
import { statusOf } from '../status-of';
import { memoryStore } from '../memory-store';

const roles = lookupGroupResource('rbac.authorization.k8s.io/roles')!;
const rolebindings = lookupGroupResource('rbac.authorization.k8s.io/rolebindings')!;
const clusterrolebindings = lookupGroupResource('rbac.authorization.k8s.io/clusterrolebindings')!;


const alice: UserInfo = { username: 'alice', uid: 'a', groups: ['devs', 'system:authenticated'] };

// The policy alice's authorizer shard holds: she manages roles and bindings in ns-a and may read pods.
function policy() {
  const p = new RbacPolicy();
  p.set('Role', { rules: [
    { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['get', 'list', 'create', 'update', 'patch', 'delete'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] },
  ] }, { namespace: 'ns-a', name: 'manager' });
  p.set('RoleBinding', { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'manager' }, subjects: [{ kind: 'User', name: 'alice' }] }, { namespace: 'ns-a', name: 'alice-manager' });
  p.set('Role', { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] }, { namespace: 'ns-a', name: 'pod-getter' });
  p.set('ClusterRole', { rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] }, { name: 'cluster-admin' });
  return p;
}

// What Authorizer.escalationGrant returns, computed from the same policy.
function grantFor(p: RbacPolicy, user: UserInfo, namespace: string, roleRef?: { apiGroup?: string; kind: string; name: string }): EscalationGrant {
  const resolved = p.resolve(user, namespace, 'registry');
  const grant: EscalationGrant = { user: { username: user.username, groups: user.groups }, privileged: false, namespace, ownerRules: resolved.rules, resolutionErrors: resolved.errors };
  if (roleRef) {
    const ref = { apiGroup: roleRef.apiGroup ?? '', kind: roleRef.kind, name: roleRef.name };
    grant.role = { ref, resolved: p.roleReference(ref, namespace) };
  }
  return grant;
}

function write(store: WriteStore, type: ResourceType, req: WriteRequest, grant: EscalationGrant | undefined) {
  return executeWrite(store, { type, now: 0, newUid: () => 'uid', randomSuffix: () => 'xxxxx', guard: escalationGuard(type, grant) }, req);
}

const REF = (kind: string, name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name });
const GROUPS = 'groups=["devs" "system:authenticated"]';

describe('escalation guard on roles', () => {
  const setup = () => {
    const { store, objects } = memoryStore();
    write(store, roles, { verb: 'create', namespace: 'ns-a', body: JSON.stringify({ metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] }) }, SYSTEM_GRANT);
    return { store, objects, before: structuredClone(objects.get('ns-a/reader')) };
  };
  const grant = () => grantFor(policy(), alice, 'ns-a');
  const denied = (name: string, missing: string) => ({
    kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
    message: `roles.rbac.authorization.k8s.io "${name}" is forbidden: user "alice" (${GROUPS}) is attempting to grant RBAC permissions not currently held:\n${missing}`,
    details: { name, group: 'rbac.authorization.k8s.io', kind: 'roles' },
  });

  it('allows a role within what the user holds, and refuses one beyond it', () => {
    const { store, objects } = setup();
    expect(write(store, roles, { verb: 'create', namespace: 'ns-a', body: JSON.stringify({ metadata: { name: 'ok' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }] }) }, grant()).code).toBe(201);
    const s = statusOf(() => write(store, roles, { verb: 'create', namespace: 'ns-a', body: JSON.stringify({ metadata: { name: 'bad' }, rules: [{ apiGroups: [''], resources: ['secrets', 'pods'], verbs: ['get', 'delete'] }] }) }, grant()));
    expect(s).toEqual(denied('bad', '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "delete"]}'));
    expect(objects.has('ns-a/bad')).toBe(false);
  });

  it.each([
    ['update', (): WriteRequest => ({ verb: 'update', namespace: 'ns-a', name: 'reader', subresource: '', body: JSON.stringify({ metadata: { name: 'reader' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] }) })],
    ['json patch', (): WriteRequest => ({ verb: 'patch', namespace: 'ns-a', name: 'reader', subresource: '', patchType: 'application/json-patch+json', body: JSON.stringify([{ op: 'replace', path: '/rules/0/verbs/0', value: '*' }]) })],
    ['merge patch', (): WriteRequest => ({ verb: 'patch', namespace: 'ns-a', name: 'reader', subresource: '', patchType: 'application/merge-patch+json', body: JSON.stringify({ rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['*'] }] }) })],
    ['strategic patch', (): WriteRequest => ({ verb: 'patch', namespace: 'ns-a', name: 'reader', subresource: '', patchType: 'application/strategic-merge-patch+json', body: JSON.stringify({ rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['*'] }] }) })],
  ])('checks the object a %s would store, and stores nothing when refused', (_name, req) => {
    const { store, objects, before } = setup();
    const s = statusOf(() => write(store, roles, req(), grant()));
    expect(s.code).toBe(403);
    expect(s.message).toContain('is attempting to grant RBAC permissions not currently held:\n{APIGroups:');
    expect(objects.get('ns-a/reader')).toEqual(before);
  });

  it('answers an unknown patch type 415 and writes nothing', () => {
    const { store, objects, before } = setup();
    const s = statusOf(() => write(store, roles, { verb: 'patch', namespace: 'ns-a', name: 'reader', subresource: '', patchType: 'application/xml', body: 'rules: []' }, grant()));
    expect(s.code).toBe(415);
    expect(objects.get('ns-a/reader')).toEqual(before);
  });

  it('refuses every RBAC write that comes without a grant (fail closed)', () => {
    const { store, objects, before } = setup();
    const s = statusOf(() => write(store, roles, { verb: 'update', namespace: 'ns-a', name: 'reader', subresource: '', body: JSON.stringify({ metadata: { name: 'reader' }, rules: [] }) }, undefined));
    expect(s).toMatchObject({ code: 403, message: 'roles.rbac.authorization.k8s.io "reader" is forbidden: no escalation check was made for this write' });
    expect(objects.get('ns-a/reader')).toEqual(before);
  });

  it('refuses a grant made for another namespace, and rules it cannot read', () => {
    const { store } = setup();
    const elsewhere = grantFor(policy(), alice, 'ns-b');
    expect(statusOf(() => write(store, roles, { verb: 'create', namespace: 'ns-a', body: JSON.stringify({ metadata: { name: 'x' }, rules: [] }) }, elsewhere)).code).toBe(403);
    const s = statusOf(() => write(store, roles, { verb: 'create', namespace: 'ns-a', body: JSON.stringify({ metadata: { name: 'x' }, rules: { verbs: ['*'] } }) }, grant()));
    // Decoding refuses it first, as kube's does: the guard never sees rules that are not a list.
    expect(s).toMatchObject({ code: 400, message: 'Role in version "v1" cannot be handled as a Role: json: cannot unmarshal object into Go struct field Role.rules of type []v1.PolicyRule' });
  });

  it('lets `escalate` waive the check, and a privileged user through', () => {
    const { store } = setup();
    const p = policy();
    p.set('Role', { rules: [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['escalate'] }] }, { namespace: 'ns-a', name: 'esc' });
    p.set('RoleBinding', { roleRef: REF('Role', 'esc'), subjects: [{ kind: 'User', name: 'alice' }] }, { namespace: 'ns-a', name: 'esc' });
    const all = JSON.stringify({ metadata: { name: 'all' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] });
    expect(write(store, roles, { verb: 'create', namespace: 'ns-a', body: all }, grantFor(p, alice, 'ns-a')).code).toBe(201);
    expect(write(store, roles, { verb: 'create', namespace: 'ns-b', body: all }, { ...SYSTEM_GRANT, namespace: 'ns-b' }).code).toBe(201);
  });

  it('lets anyone holding update change only finalizers and ownerReferences, as kube\'s GC exemption does', () => {
    const { store } = setup();
    write(store, roles, { verb: 'create', namespace: 'ns-a', body: JSON.stringify({ metadata: { name: 'wide', finalizers: ['x/y'] }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] }) }, SYSTEM_GRANT);
    const res = write(store, roles, { verb: 'patch', namespace: 'ns-a', name: 'wide', subresource: '', patchType: 'application/merge-patch+json', body: '{"metadata":{"finalizers":null}}' }, grant());
    expect(res.code).toBe(200);
  });
});

describe('escalation guard on bindings', () => {
  const binding = (name: string, roleRef: object, subjects = [{ kind: 'User', name: 'bob' }]) => JSON.stringify({ metadata: { name }, roleRef, subjects });

  it('allows binding a role the user holds everything of', () => {
    const { store } = memoryStore();
    const ref = REF('Role', 'pod-getter');
    expect(write(store, rolebindings, { verb: 'create', namespace: 'ns-a', body: binding('b', ref) }, grantFor(policy(), alice, 'ns-a', ref)).code).toBe(201);
  });

  it('refuses binding a role beyond the user\'s rules', () => {
    const { store, objects } = memoryStore();
    const ref = REF('ClusterRole', 'cluster-admin');
    const s = statusOf(() => write(store, rolebindings, { verb: 'create', namespace: 'ns-a', body: binding('b', ref) }, grantFor(policy(), alice, 'ns-a', ref)));
    expect(s).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
      message: `rolebindings.rbac.authorization.k8s.io "b" is forbidden: user "alice" (${GROUPS}) is attempting to grant RBAC permissions not currently held:\n{APIGroups:["*"], Resources:["*"], Verbs:["*"]}`,
      details: { name: 'b', group: 'rbac.authorization.k8s.io', kind: 'rolebindings' },
    });
    expect(objects.size).toBe(0);
  });

  it('answers a binding to a missing role as kube does: the role\'s NotFound', () => {
    const { store, objects } = memoryStore();
    const ref = REF('ClusterRole', 'no-such-role');
    expect(statusOf(() => write(store, clusterrolebindings, { verb: 'create', namespace: '', body: binding('b', ref) }, grantFor(policy(), alice, '', ref)))).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'NotFound', code: 404,
      message: 'clusterroles.rbac.authorization.k8s.io "no-such-role" not found',
      details: { name: 'no-such-role', group: 'rbac.authorization.k8s.io', kind: 'clusterroles' },
    });
    expect(objects.size).toBe(0);
  });

  it('lets `bind` on the role waive the check, even for a role that does not exist yet', () => {
    const p = policy();
    p.set('ClusterRole', { rules: [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['bind'], resourceNames: ['future'] }] }, { name: 'binder' });
    p.set('ClusterRoleBinding', { roleRef: REF('ClusterRole', 'binder'), subjects: [{ kind: 'Group', name: 'devs' }] }, { name: 'devs-bind' });
    const { store } = memoryStore();
    const ref = REF('ClusterRole', 'future');
    expect(write(store, clusterrolebindings, { verb: 'create', namespace: '', body: binding('b', ref) }, grantFor(p, alice, '', ref)).code).toBe(201);
  });

  it('refuses (409) a write whose final roleRef is not the one the grant resolved, e.g. a patch the front door could not evaluate', () => {
    const { store, objects } = memoryStore();
    write(store, rolebindings, { verb: 'create', namespace: 'ns-a', body: binding('b', REF('ClusterRole', 'cluster-admin')) }, SYSTEM_GRANT);
    const before = structuredClone(objects.get('ns-a/b'));
    const req: WriteRequest = { verb: 'patch', namespace: 'ns-a', name: 'b', subresource: '', patchType: 'application/merge-patch+json', body: '{"subjects":[{"kind":"User","name":"alice"}]}' };
    // No roleRef resolved (the front door's guess failed) …
    expect(statusOf(() => write(store, rolebindings, req, grantFor(policy(), alice, 'ns-a')))).toMatchObject({
      code: 409, reason: 'Conflict',
      message: 'Operation cannot be fulfilled on rolebindings.rbac.authorization.k8s.io "b": the object has been modified; please apply your changes to the latest version and try again',
    });
    // … or another role resolved: refused all the same, never checked against the wrong role.
    expect(statusOf(() => write(store, rolebindings, req, grantFor(policy(), alice, 'ns-a', REF('Role', 'pod-getter')))).code).toBe(409);
    expect(objects.get('ns-a/b')).toEqual(before);
  });

  it('refuses a roleRef change with 422, as kube\'s validation does, and 403 first if the new role is beyond the user', () => {
    const { store, objects } = memoryStore();
    write(store, rolebindings, { verb: 'create', namespace: 'ns-a', body: binding('b', REF('Role', 'pod-getter')) }, SYSTEM_GRANT);
    const before = structuredClone(objects.get('ns-a/b'));
    const toAdmin: WriteRequest = { verb: 'patch', namespace: 'ns-a', name: 'b', subresource: '', patchType: 'application/merge-patch+json', body: JSON.stringify({ roleRef: { name: 'manager' } }) };
    expect(statusOf(() => write(store, rolebindings, toAdmin, { ...SYSTEM_GRANT, namespace: 'ns-a' }))).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Invalid', code: 422,
      message: 'RoleBinding.rbac.authorization.k8s.io "b" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"manager"}: cannot change roleRef',
      details: { name: 'b', group: 'rbac.authorization.k8s.io', kind: 'RoleBinding', causes: [{ reason: 'FieldValueInvalid', field: 'roleRef', message: 'Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"manager"}: cannot change roleRef' }] },
    });
    const toClusterAdmin: WriteRequest = { ...toAdmin, body: JSON.stringify({ roleRef: { kind: 'ClusterRole', name: 'cluster-admin' } }) };
    expect(statusOf(() => write(store, rolebindings, toClusterAdmin, grantFor(policy(), alice, 'ns-a', REF('ClusterRole', 'cluster-admin')))).code).toBe(403);
    expect(objects.get('ns-a/b')).toEqual(before);
  });

  it('appends the errors met resolving the user\'s own rules to a denial, as kube does', () => {
    const p = policy();
    p.set('RoleBinding', { roleRef: REF('Role', 'gone'), subjects: [{ kind: 'User', name: 'alice' }] }, { namespace: 'ns-a', name: 'dangling' });
    const ref = REF('ClusterRole', 'cluster-admin');
    const s = statusOf(() => write(memoryStore().store, rolebindings, { verb: 'create', namespace: 'ns-a', body: binding('b', ref) }, grantFor(p, alice, 'ns-a', ref)));
    expect(s.message).toMatch(/Verbs:\["\*"\]\}; resolution errors: \[roles\.rbac\.authorization\.k8s\.io "gone" not found\]$/);
  });

  it('refuses a role too large to check within the budget, rather than allowing it', () => {
    const verbs = Array.from({ length: 300 }, (_, i) => `v${i}`);
    const groups = Array.from({ length: 300 }, (_, i) => `g${i}`);
    const grant: EscalationGrant = {
      ...grantFor(policy(), alice, 'ns-a'),
      ownerRules: verbs.flatMap((v, i) => groups.filter((_, j) => (i + j) % 2 === 0).map((g) => ({ verbs: [v], apiGroups: [g], resources: ['*'] }))),
    };
    const { store, objects } = memoryStore();
    const s = statusOf(() => write(store, roles, { verb: 'create', namespace: 'ns-a', body: JSON.stringify({ metadata: { name: 'big' }, rules: [{ verbs, apiGroups: groups, resources: ['pods'] }] }) }, grant));
    expect(s.code).toBe(403);
    expect(s.message).toContain('could not be verified as currently held: the escalation check needs more than 250000 steps');
    expect(objects.size).toBe(0);
  });
});

describe('escalation guard on aggregated ClusterRoles', () => {
  const clusterroles = lookupGroupResource('rbac.authorization.k8s.io/clusterroles')!;
  it('takes cluster-admin\'s full authority to set an aggregationRule, whatever the rules', () => {
    const { store, objects } = memoryStore();
    const body = JSON.stringify({ metadata: { name: 'agg' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] }, rules: [] });
    const s = statusOf(() => write(store, clusterroles, { verb: 'create', namespace: '', body }, grantFor(policy(), alice, '')));
    expect(s).toMatchObject({ code: 403, message: 'clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule' });
    expect(objects.size).toBe(0);
    const full: EscalationGrant = { ...grantFor(policy(), alice, ''), ownerRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verbs: ['*'], nonResourceURLs: ['*'] }] };
    expect(write(store, clusterroles, { verb: 'create', namespace: '', body }, full).code).toBe(201);
  });
});
