// kube's CSR approver (controllers/csr-approver.ts over core/certificates/approver.ts) with fakes and CSRs made by
// openssl: kubelet client requests are approved after a SubjectAccessReview of the requester, anything else waits.
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '../../client/types';
import { CsrApprovingController } from '../../controllers/csr-approver';
import { approvalCandidates } from '../../core/certificates/approver';
import { FakeApi, FakeClock, FakeInformer } from './fakes';

type Obj = Record<string, any>;
const dir = mkdtempSync(join(tmpdir(), 'csr-approver-'));

function makeCsr(name: string, subj: string): string {
  const out = join(dir, `${name}.csr`);
  execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(dir, `${name}.key`), '-subj', subj, '-out', out], { stdio: 'ignore' });
  return readFileSync(out).toString('base64');
}

const NODE = 'system:node:node-1';
const csr = (name: string, request: string, spec: Obj = {}): KubeObject => ({
  apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name, uid: `${name}-uid`, resourceVersion: '1' },
  spec: { request, signerName: 'kubernetes.io/kube-apiserver-client-kubelet', usages: ['digital signature', 'client auth'], ...spec },
  status: {},
} as KubeObject);

/** An API whose SubjectAccessReviews allow what `allow` says (subresource → allowed for that user). */
class ReviewingApi extends FakeApi {
  reviews: Obj[] = [];
  constructor(private readonly allow: (user: string, subresource: string) => boolean) {
    super();
  }
  override async create(r: Parameters<FakeApi['create']>[0], ns: string, obj: KubeObject): Promise<KubeObject> {
    if (r.resource !== 'subjectaccessreviews') return super.create(r, ns, obj);
    const spec = (obj as Obj).spec;
    this.reviews.push(spec);
    return { ...obj, status: { allowed: this.allow(spec.user, spec.resourceAttributes.subresource) } } as KubeObject;
  }
}

async function approve(api: ReviewingApi, o: KubeObject) {
  const csrs = new FakeInformer();
  csrs.add(o);
  const c = new CsrApprovingController({ api, csrs, clock: new FakeClock() });
  return c.sync(o.metadata.name!);
}

describe('CSR approver (sarapprove.go)', () => {
  const nodeReq = makeCsr('node', `/O=system:nodes/CN=${NODE}`);

  it('approves a kubelet renewing its own client certificate after a selfnodeclient review', async () => {
    const api = new ReviewingApi((user, sub) => user === NODE && sub === 'selfnodeclient');
    await approve(api, csr('renew', nodeReq, { username: NODE, groups: ['system:nodes', 'system:authenticated'] }));
    expect(api.reviews[0]).toMatchObject({ user: NODE, groups: ['system:nodes', 'system:authenticated'],
      resourceAttributes: { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', verb: 'create', version: '*', subresource: 'selfnodeclient' } });
    const [update] = api.writes('update', 'certificatesigningrequests');
    expect(update!.subresource).toBe('approval');
    expect((update!.body as Obj).status.conditions).toEqual([{ type: 'Approved', status: 'True', reason: 'AutoApproved',
      message: 'Auto approving self kubelet client certificate after SubjectAccessReview.' }]);
  });

  it('approves a bootstrapping node (another requester) after a nodeclient review', async () => {
    const boot = 'system:bootstrap:abcdef';
    const api = new ReviewingApi((user, sub) => user === boot && sub === 'nodeclient');
    await approve(api, csr('bootstrap', nodeReq, { username: boot, groups: ['system:bootstrappers'] }));
    expect(api.reviews.map((r) => r.resourceAttributes.subresource)).toEqual(['nodeclient']);
    expect(((api.writes('update')[0]!.body as Obj).status.conditions[0]).message).toBe('Auto approving kubelet client certificate after SubjectAccessReview.');
  });

  it('leaves it pending, with kube\'s error for the retry, when no review allows it', async () => {
    const api = new ReviewingApi(() => false);
    await expect(approve(api, csr('denied', nodeReq, { username: NODE }))).rejects.toThrow('recognized csr "denied" as [selfnodeclient nodeclient] but subject access review was not approved');
    expect(api.writes('update')).toEqual([]);
  });

  it('recognizes only kubelet client requests that are not decided yet', () => {
    const notNode = makeCsr('alice', '/O=dev/CN=alice');
    expect(approvalCandidates(csr('alice', notNode, { username: 'alice' }))).toEqual([]);
    expect(approvalCandidates(csr('other-signer', nodeReq, { username: NODE, signerName: 'kubernetes.io/kube-apiserver-client' }))).toEqual([]);
    expect(approvalCandidates(csr('serving-usages', nodeReq, { username: NODE, usages: ['server auth'] }))).toEqual([]);
    const approved = csr('done', nodeReq, { username: NODE });
    (approved as Obj).status = { conditions: [{ type: 'Denied', status: 'True' }] };
    expect(approvalCandidates(approved)).toEqual([]);
    expect(approvalCandidates(csr('garbage', 'bm90IGEgY3Ny', { username: NODE }))).toEqual({ error: expect.stringContaining('unable to parse csr "garbage"') });
  });
});
