// Core: kube-controller-manager's CSR approver up to its SubjectAccessReview (kubernetes
// pkg/controller/certificates/approver/sarapprove.go, 1.32): which of its recognizers a pending
// CertificateSigningRequest matches, in kube's order — a kubelet renewing its own client certificate (the requester
// is the certificate's CN: `selfnodeclient`), then any kubelet client certificate request (`nodeclient`). The
// controller approves the first whose permission the requester holds (controllers/csr-approver.ts).

import { KUBE_APISERVER_CLIENT_KUBELET, kubeletClientProblem, requestOf } from './signer';

type Obj = Record<string, any>;

export interface ApprovalCandidate {
  subresource: 'selfnodeclient' | 'nodeclient'; // of certificatesigningrequests, verb create
  message: string; // the Approved condition's message (kube's successMessage)
}

/** Approved or Denied already, or issued: the approver leaves it (GetCertApprovalCondition, len(Certificate) != 0). */
export function decided(csr: Obj): boolean {
  if (csr?.status?.certificate) return true;
  const conditions: Obj[] = Array.isArray(csr?.status?.conditions) ? csr.status.conditions : [];
  return conditions.some((c) => c?.type === 'Approved' || c?.type === 'Denied');
}

/** The recognizers this CSR matches, each with the permission to check; an error when its request does not parse. */
export function approvalCandidates(csr: Obj): ApprovalCandidate[] | { error: string } {
  if (decided(csr)) return [];
  const req = requestOf(csr);
  if ('error' in req) return req;
  const usages: string[] = Array.isArray(csr?.spec?.usages) ? csr.spec.usages.map(String) : [];
  const nodeClient = csr?.spec?.signerName === KUBE_APISERVER_CLIENT_KUBELET && kubeletClientProblem(req, usages) === undefined;
  if (!nodeClient) return [];
  const self = csr?.spec?.username === req.subject.commonName;
  return [
    ...(self ? [{ subresource: 'selfnodeclient' as const, message: 'Auto approving self kubelet client certificate after SubjectAccessReview.' }] : []),
    { subresource: 'nodeclient' as const, message: 'Auto approving kubelet client certificate after SubjectAccessReview.' },
  ];
}
