// RBAC and the smaller types (Namespace, Node, Event, Endpoints, EndpointSlice, Lease): exact causes.
import { describe, expect, it } from 'vitest';
import { SEEDS } from '../../../core/bootstrap';
import { causesOf, DNS_LABEL, dup, inv, mutated, RANGE, req, unsup, type Any } from './helpers';

const RBAC = 'rbac.authorization.k8s.io/v1';
const role = (): Any => ({
  apiVersion: RBAC, kind: 'Role', metadata: { name: 'pod-reader', namespace: 'default' },
  rules: [{ apiGroups: [''], resources: ['pods', 'pods/log'], verbs: ['get', 'watch', 'list'] }],
});
const clusterRole = (): Any => ({
  apiVersion: RBAC, kind: 'ClusterRole', metadata: { name: 'monitoring' },
  rules: [{ apiGroups: ['apps'], resources: ['deployments'], resourceNames: ['web'], verbs: ['get'] }, { nonResourceURLs: ['/metrics', '/healthz/*'], verbs: ['get'] }],
});
const roleBinding = (): Any => ({
  apiVersion: RBAC, kind: 'RoleBinding', metadata: { name: 'read-pods', namespace: 'default' },
  subjects: [
    { kind: 'User', name: 'jane', apiGroup: 'rbac.authorization.k8s.io' },
    { kind: 'Group', name: 'devs' },
    { kind: 'ServiceAccount', name: 'builder', namespace: 'ci' },
    { kind: 'ServiceAccount', name: 'local' },
  ],
  roleRef: { kind: 'Role', name: 'pod-reader', apiGroup: 'rbac.authorization.k8s.io' },
});
const clusterRoleBinding = (): Any => ({
  apiVersion: RBAC, kind: 'ClusterRoleBinding', metadata: { name: 'read-secrets-global' },
  subjects: [{ kind: 'Group', name: 'managers', apiGroup: 'rbac.authorization.k8s.io' }],
  roleRef: { kind: 'ClusterRole', name: 'secret-reader', apiGroup: 'rbac.authorization.k8s.io' },
});

describe('rbac', () => {
  it('accepts real manifests and every bootstrap object', () => {
    for (const make of [role, clusterRole, roleBinding, clusterRoleBinding]) expect(causesOf(make())).toEqual([]);
    expect(causesOf(mutated(roleBinding, (b) => { b.roleRef.kind = 'ClusterRole'; b.roleRef.name = 'view'; }))).toEqual([]);
    for (const [store, objects] of Object.entries(SEEDS)) {
      if (!store.startsWith('rbac')) continue;
      for (const obj of objects) expect(causesOf(obj as Any)).toEqual([]);
    }
  });

  it.each<[string, () => Any, (o: Any) => void, object[]]>([
    ['a rule without verbs, groups or resources', role, (r) => { r.rules = [{}]; }, [
      req('rules[0].verbs', 'verbs must contain at least one value'),
      req('rules[0].apiGroups', 'resource rules must supply at least one api group'),
      req('rules[0].resources', 'resource rules must supply at least one resource'),
    ]],
    ['nonResourceURLs in a namespaced Role', role, (r) => { r.rules = [{ nonResourceURLs: ['/healthz'], verbs: ['get'] }]; }, [
      inv('rules[0].nonResourceURLs', '[]string{"/healthz"}', 'namespaced rules cannot apply to non-resource URLs'),
    ]],
    ['nonResourceURLs mixed with resources', clusterRole, (r) => { r.rules = [{ nonResourceURLs: ['/x'], resources: ['pods'], verbs: ['get'] }]; }, [
      inv('rules[0].nonResourceURLs', '[]string{"/x"}', 'rules cannot apply to both regular resources and non-resource URLs'),
    ]],
    ['an aggregation rule without selectors', clusterRole, (r) => { r.aggregationRule = { clusterRoleSelectors: [] }; }, [
      req('aggregationRule.clusterRoleSelectors', 'at least one clusterRoleSelector required if aggregationRule is non-nil'),
    ]],
    ['a binding without roleRef', roleBinding, (b) => { delete b.roleRef; }, [
      unsup('roleRef.apiGroup', '""', ['rbac.authorization.k8s.io']),
      unsup('roleRef.kind', '""', ['Role', 'ClusterRole']),
      req('roleRef.name'),
    ]],
    ['a roleRef with a bad kind and name', roleBinding, (b) => { b.roleRef = { apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'a/b' }; }, [
      unsup('roleRef.kind', '"User"', ['Role', 'ClusterRole']),
      inv('roleRef.name', '"a/b"', "may not contain '/'"),
    ]],
    ['subjects: unknown kind, missing name, bad apiGroups, bad SA name', roleBinding, (b) => {
      b.subjects = [
        { kind: 'Robot', name: 'r' }, { kind: 'User' }, { kind: 'Group', name: 'g', apiGroup: 'example.com' },
        { kind: 'ServiceAccount', name: 'Bad_SA', apiGroup: 'rbac.authorization.k8s.io' },
      ];
    }, [
      unsup('subjects[0].kind', '"Robot"', ['ServiceAccount', 'User', 'Group']),
      req('subjects[1].name'),
      unsup('subjects[2].apiGroup', '"example.com"', ['rbac.authorization.k8s.io']),
      inv('subjects[3].name', '"Bad_SA"', "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"),
      unsup('subjects[3].apiGroup', '"rbac.authorization.k8s.io"', ['']),
    ]],
    ['a ClusterRoleBinding to a Role, and a ServiceAccount without namespace', clusterRoleBinding, (b) => {
      b.roleRef.kind = 'Role'; b.subjects = [{ kind: 'ServiceAccount', name: 'default' }];
    }, [
      unsup('roleRef.kind', '"Role"', ['ClusterRole']),
      req('subjects[0].namespace'),
    ]],
  ])('%s', (_name, make, change, expected) => {
    expect(causesOf(mutated(make, change))).toEqual(expected);
  });

  it('forbids changing roleRef on update', () => {
    const next = mutated(roleBinding, (b) => { b.roleRef.name = 'admin'; b.roleRef.kind = 'ClusterRole'; });
    expect(causesOf(next, roleBinding())).toEqual([
      inv('roleRef', 'rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"admin"}', 'cannot change roleRef'),
    ]);
    expect(causesOf(mutated(roleBinding, (b) => { b.subjects = []; }), roleBinding())).toEqual([]);
  });
});

describe('namespaces, nodes, events, endpoints, endpointslices, leases', () => {
  const ns = (): Any => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' }, spec: { finalizers: ['kubernetes'] } });
  const node = (): Any => ({
    apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' },
    spec: { podCIDR: '10.244.1.0/24', podCIDRs: ['10.244.1.0/24', 'fd00::/64'], taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }] },
  });
  const event = (): Any => ({
    apiVersion: 'v1', kind: 'Event', metadata: { name: 'web.1', namespace: 'shop' },
    involvedObject: { kind: 'Pod', name: 'web', namespace: 'shop' }, reason: 'Started', message: 'Started container', type: 'Normal',
  });
  const endpoints = (): Any => ({
    apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web', namespace: 'shop' },
    subsets: [{ addresses: [{ ip: '10.244.1.5', nodeName: 'node-1' }], ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443, protocol: 'TCP' }] }],
  });
  const slice = (): Any => ({
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'web-abc', namespace: 'shop' },
    addressType: 'IPv4', endpoints: [{ addresses: ['10.244.1.5'], conditions: { ready: true }, nodeName: 'node-1' }],
    ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
  });
  const lease = (): Any => ({
    apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'node-1', namespace: 'kube-node-lease' },
    spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40, renewTime: '2026-01-01T00:00:00.000000Z' },
  });

  it('accepts real objects', () => {
    for (const make of [ns, node, event, endpoints, slice, lease]) expect(causesOf(make())).toEqual([]);
  });

  it.each<[string, () => Any, (o: Any) => void, object[]]>([
    ['namespace finalizer names', ns, (n) => { n.spec.finalizers = ['custom', 'example.com/cleanup', 'a/b/c']; }, [
      inv('spec.finalizers', '"custom"', 'name is neither a standard finalizer name nor is it fully qualified'),
      inv('spec.finalizers', '"a/b/c"', "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"),
    ]],
    ['node taints: effect, duplicates', node, (n) => {
      n.spec.taints = [{ key: 'k', value: 'v', effect: 'NoSchedule' }, { key: 'k', value: 'w', effect: 'NoSchedule' }, { key: 'j', effect: 'Never' }, { key: 'i' }];
    }, [
      { reason: 'FieldValueDuplicate', field: 'spec.taints[1]', message: 'Duplicate value: core.Taint{Key:"k", Value:"w", Effect:"NoSchedule", TimeAdded:<nil>}: taints must be unique by key and effect pair' },
      unsup('spec.taints[2].effect', '"Never"', ['NoSchedule', 'PreferNoSchedule', 'NoExecute']),
      req('spec.taints[3].effect'),
    ]],
    ['node pod CIDRs', node, (n) => { n.spec.podCIDRs = ['10.0.0.0/33', '10.1.0.0/16']; }, [
      inv('spec.podCIDRs[0]', '"10.0.0.0/33"', 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'),
    ]],
    ['node pod CIDRs of one family', node, (n) => { n.spec.podCIDRs = ['10.0.0.0/16', '10.1.0.0/16']; }, [
      inv('spec.podCIDRs', '[]string{"10.0.0.0/16", "10.1.0.0/16"}', 'may specify no more than one CIDR for each IP family'),
    ]],
    ['event in another namespace than its object', event, (e) => { e.involvedObject.namespace = 'other'; }, [
      inv('involvedObject.namespace', '"other"', 'does not match event.namespace'),
    ]],
    ['a cluster-scoped object may have events in default only', event, (e) => { e.involvedObject = { kind: 'Node', name: 'n' }; }, [
      inv('involvedObject.namespace', '""', 'does not match event.namespace'),
    ]],
    ['a new-style event needs reporting fields', event, (e) => { e.eventTime = '2026-01-01T00:00:00.000000Z'; }, [
      req('reportingComponent'),
      inv('reportingComponent', '""', "name part must be non-empty"),
      inv('reportingComponent', '""', "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"),
      req('reportingInstance'),
      req('action'),
    ]],
    ['endpoints without addresses, bad IPs and ports', endpoints, (e) => {
      e.subsets = [{ ports: [{ port: 80 }] }, { addresses: [{ ip: 'ten' }, { ip: '127.0.0.1' }], ports: [{ name: 'a', port: 0, protocol: 'IP' }, { port: 2 }] }];
    }, [
      req('subsets[0]', 'must specify `addresses` or `notReadyAddresses`'),
      inv('subsets[1].addresses[0].ip', '"ten"', 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'),
      inv('subsets[1].addresses[0].ip', '"ten"', 'must be a valid IP address'),
      inv('subsets[1].addresses[1].ip', '"127.0.0.1"', 'may not be in the loopback range (127.0.0.0/8, ::1/128)'),
      inv('subsets[1].ports[0].port', '0', RANGE),
      unsup('subsets[1].ports[0].protocol', '"IP"', ['SCTP', 'TCP', 'UDP']),
      req('subsets[1].ports[1].name'),
    ]],
    ['endpointslice address type and addresses', slice, (s) => {
      s.addressType = 'IPv5';
      s.endpoints.push({ addresses: [] });
    }, [
      unsup('addressType', '"IPv5"', ['FQDN', 'IPv4', 'IPv6']),
      req('endpoints[1].addresses', 'must contain at least 1 address'),
    ]],
    ['endpointslice IPv4 addresses, port names', slice, (s) => {
      s.endpoints = [{ addresses: ['::1', '0.0.0.0'], hostname: 'Web' }];
      s.ports = [{ name: 'http', port: 80 }, { name: 'http', port: 81 }, { name: 'H', protocol: 'ICMP' }];
    }, [
      inv('endpoints[0].addresses[0]', '"::1"', 'must be a valid IPv4 address'),
      inv('endpoints[0].addresses[1]', '"0.0.0.0"', 'may not be unspecified (0.0.0.0)'),
      inv('endpoints[0].hostname', '"Web"', DNS_LABEL),
      dup('ports[1].name', '"http"'),
      inv('ports[2].name', '"H"', DNS_LABEL),
      unsup('ports[2].protocol', '"ICMP"', ['SCTP', 'TCP', 'UDP']),
    ]],
    ['endpointslice without addressType', slice, (s) => { delete s.addressType; }, [req('addressType')]],
    ['lease durations', lease, (l) => { l.spec.leaseDurationSeconds = 0; l.spec.leaseTransitions = -1; }, [
      inv('spec.leaseDurationSeconds', '0', 'must be greater than 0'),
      inv('spec.leaseTransitions', '-1', 'must be greater than or equal to 0'),
    ]],
  ])('%s', (_name, make, change, expected) => {
    expect(causesOf(mutated(make, change))).toEqual(expected);
  });
});

describe('metadata beyond names and labels', () => {
  const cm = (metadata: Any): Any => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'd', ...metadata } });
  it.each<[string, Any, object[]]>([
    ['qualified and standard finalizers', { finalizers: ['example.com/cleanup', 'kubernetes'] }, []],
    ['an unqualified finalizer', { finalizers: ['cleanup'] }, [inv('metadata.finalizers', '"cleanup"', 'name is neither a standard finalizer name nor is it fully qualified')]],
    ['orphan with foregroundDeletion', { finalizers: ['orphan', 'foregroundDeletion'] }, [
      inv('metadata.finalizers', '[]string{"orphan", "foregroundDeletion"}', 'finalizer orphan and foregroundDeletion cannot be both set'),
    ]],
    ['owner references with empty fields and two controllers', {
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'a', uid: 'u1', controller: true },
        { apiVersion: 'apps/', kind: '', name: '', uid: '', controller: true },
      ],
    }, [
      inv('metadata.ownerReferences.apiVersion', '"apps/"', 'version must not be empty'),
      inv('metadata.ownerReferences.kind', '""', 'must not be empty'),
      inv('metadata.ownerReferences.name', '""', 'must not be empty'),
      inv('metadata.ownerReferences.uid', '""', 'must not be empty'),
      {
        reason: 'FieldValueInvalid', field: 'metadata.ownerReferences',
        message: 'Invalid value: [{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"a","uid":"u1","controller":true},{"apiVersion":"apps/","kind":"","name":"","uid":"","controller":true}]: Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/a and /',
      },
    ]],
  ])('%s', (_name, metadata, expected) => {
    expect(causesOf(cm(metadata))).toEqual(expected);
  });
});
