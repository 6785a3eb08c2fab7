// Controllers: kube-controller-manager's CSR approver (kubernetes pkg/controller/certificates/approver/sarapprove.go,
// 1.32): a pending kubelet client CertificateSigningRequest (core/certificates/approver.ts recognizes it) is approved
// when its requester may create certificatesigningrequests/selfnodeclient (renewing its own) or /nodeclient (any
// node's, e.g. a bootstrap token's group) — asked with a SubjectAccessReview for the CSR's recorded user, as kube
// asks. Anything else waits for a person (`kubectl certificate approve`). It runs as certificate-controller.

import type { KubeObject } from '../client/types';
import { errorText, type Api, type ResourceRef } from './api-client';
import type { Clock } from './clock';
import type { SharedInformer } from './informers';
import { logSyncError, runWorker, WorkQueue } from './workqueue';
import { approvalCandidates, decided } from '../core/certificates/approver';
import { CSRS, COMPONENT } from './csr';

export const SUBJECT_ACCESS_REVIEWS: ResourceRef = { group: 'authorization.k8s.io', version: 'v1', resource: 'subjectaccessreviews', namespaced: false };

type Obj = Record<string, any>;

export interface CsrApprovingDeps {
  api: Api;
  csrs: SharedInformer;
  clock: Clock;
}

export class CsrApprovingController {
  readonly queue: WorkQueue;

  constructor(private readonly d: CsrApprovingDeps) {
    this.queue = new WorkQueue(d.clock);
    const enqueue = (o: KubeObject) => {
      if (!decided(o)) this.queue.add(o.metadata.name!);
    };
    d.csrs.addHandlers({ add: enqueue, update: enqueue });
  }

  run(workers = 5): Promise<void>[] {
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), { onError: logSyncError(`${COMPONENT} (approver)`) }));
  }

  async sync(name: string): Promise<void> {
    const cached = this.d.csrs.get(name) as Obj | undefined;
    if (!cached) return;
    const candidates = approvalCandidates(cached);
    if ('error' in candidates) throw new Error(candidates.error);
    const tried: string[] = [];
    for (const c of candidates) {
      tried.push(c.subresource);
      if (!(await this.allowed(cached, c.subresource))) continue;
      const csr = structuredClone(cached);
      csr.status = csr.status ?? {};
      csr.status.conditions = [...(Array.isArray(csr.status.conditions) ? csr.status.conditions : []),
        { type: 'Approved', status: 'True', reason: 'AutoApproved', message: c.message }];
      try {
        await this.d.api.update(CSRS, csr as KubeObject, 'approval');
      } catch (e) {
        throw new Error(`error updating approval for csr: ${errorText(e)}`);
      }
      return;
    }
    // kube returns an ignorable error: retried with backoff, logged only verbosely.
    if (tried.length) throw new Error(`recognized csr "${name}" as [${tried.join(' ')}] but subject access review was not approved`);
  }

  private async allowed(csr: Obj, subresource: string): Promise<boolean> {
    const spec = csr.spec ?? {};
    const review = await this.d.api.create(SUBJECT_ACCESS_REVIEWS, '', {
      apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', metadata: {},
      spec: {
        user: spec.username, uid: spec.uid, groups: spec.groups, extra: spec.extra,
        resourceAttributes: { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', verb: 'create', version: '*', subresource },
      },
    } as KubeObject) as Obj;
    return review?.status?.allowed === true;
  }
}
