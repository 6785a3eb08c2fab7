// Core: kube-controller-manager's CSR signing policy (kubernetes pkg/controller/certificates/signer/signer.go,
// authority/policies.go PermissiveSigningPolicy, pkg/apis/certificates/helpers.go, 1.32), pure: which signer
// names it signs for and each one's checks on usages and subject, the certificate's lifetime (the cluster
// signing duration, shortened by spec.expirationSeconds down to 10 minutes; 5 minutes backdated; never past the
// CA's own expiry), and the issued certificate as PEM. Signing itself is injected (core/certificates/keys.ts).

import { parseCsrPem, type CertificateRequest } from './csr';
import { encodePem } from './pem';
import { assembleCertificate, tbsCertificate, usagesFromStrings, type CaCertificate } from './x509';

export const KUBE_APISERVER_CLIENT = 'kubernetes.io/kube-apiserver-client';
export const KUBE_APISERVER_CLIENT_KUBELET = 'kubernetes.io/kube-apiserver-client-kubelet';
export const KUBELET_SERVING = 'kubernetes.io/kubelet-serving';
export const SIGNER_NAMES = [KUBELET_SERVING, KUBE_APISERVER_CLIENT_KUBELET, KUBE_APISERVER_CLIENT] as const;

/** kube-controller-manager's --cluster-signing-duration default: one year. */
export const DEFAULT_SIGNING_DURATION_SECONDS = 365 * 24 * 3600;
const MIN_DURATION_MS = 10 * 60_000; // twice the backdate: signer.go's lower bound on a requested duration
const BACKDATE_MS = 5 * 60_000;
const SHORT_MS = 8 * 3600_000; // shorter lifetimes are not backdated at their end

const sameSet = (usages: readonly string[], want: readonly string[]): boolean => {
  const s = new Set(usages);
  return s.size === want.length && want.every((u) => s.has(u));
};
const listed = (want: readonly string[]) => `[${[...want].sort().join(' ')}]`;

const SERVING = ['digital signature', 'key encipherment', 'server auth'];
const SERVING_NO_RSA = ['digital signature', 'server auth'];
const CLIENT = ['digital signature', 'key encipherment', 'client auth'];
const CLIENT_NO_RSA = ['digital signature', 'client auth'];

const isSystemNodes = (r: CertificateRequest) => r.subject.organization.length === 1 && r.subject.organization[0] === 'system:nodes';

/** ValidateKubeletServingCSR. */
function kubeletServing(r: CertificateRequest, usages: readonly string[]): string | undefined {
  if (!isSystemNodes(r)) return 'subject organization is not system:nodes';
  if (!r.dnsNames.length && !r.ipAddresses.length) return 'DNS or IP subjectAltName is required';
  if (r.emailAddresses.length) return 'Email subjectAltNames are not allowed';
  if (r.uris.length) return 'URI subjectAltNames are not allowed';
  if (!sameSet(usages, SERVING) && !sameSet(usages, SERVING_NO_RSA)) return `usages did not match ${listed(SERVING)}`;
  if (!r.subject.commonName.startsWith('system:node:')) return 'subject common name does not begin with system:node:';
  return undefined;
}

/** ValidateKubeletClientCSR. */
function kubeletClient(r: CertificateRequest, usages: readonly string[]): string | undefined {
  if (!isSystemNodes(r)) return 'subject organization is not system:nodes';
  if (r.dnsNames.length) return 'DNS subjectAltNames are not allowed';
  if (r.emailAddresses.length) return 'Email subjectAltNames are not allowed';
  if (r.ipAddresses.length) return 'IP subjectAltNames are not allowed';
  if (r.uris.length) return 'URI subjectAltNames are not allowed';
  if (!r.subject.commonName.startsWith('system:node:')) return 'subject common name does not begin with system:node:';
  if (!sameSet(usages, CLIENT) && !sameSet(usages, CLIENT_NO_RSA)) return `usages did not match ${listed(CLIENT)}`;
  return undefined;
}

/** validAPIServerClientUsages: client auth required, digital signature and key encipherment allowed. */
function apiServerClient(_r: CertificateRequest, usages: readonly string[]): string | undefined {
  let clientAuth = false;
  for (const u of usages) {
    if (u === 'client auth') clientAuth = true;
    else if (u !== 'digital signature' && u !== 'key encipherment') return `invalid usage for client certificate: ${u}`;
  }
  return clientAuth ? undefined : 'missing required usage for client certificate: client auth';
}

const CHECKS: Record<string, (r: CertificateRequest, usages: readonly string[]) => string | undefined> = {
  [KUBELET_SERVING]: kubeletServing, [KUBE_APISERVER_CLIENT_KUBELET]: kubeletClient, [KUBE_APISERVER_CLIENT]: apiServerClient,
};

type Obj = Record<string, any>;

const conditions = (csr: Obj): Obj[] => (Array.isArray(csr?.status?.conditions) ? csr.status.conditions : []);

/** Whether the signer acts on this CSR at all: approved, not failed, not yet issued, one of its signer names. */
export function wantsSigning(csr: Obj): boolean {
  const cs = conditions(csr);
  const approved = cs.some((c) => c?.type === 'Approved') && !cs.some((c) => c?.type === 'Denied');
  const failed = cs.some((c) => c?.type === 'Failed' && c?.status === 'True');
  return approved && !failed && !csr?.status?.certificate && String(csr?.spec?.signerName ?? '') in CHECKS;
}

/** signer.duration: the signing duration, or the request's expirationSeconds when shorter, but at least 10 minutes. */
export function certificateTtlMs(expirationSeconds: unknown, signingDurationSeconds: number): number {
  const max = signingDurationSeconds * 1000;
  if (typeof expirationSeconds !== 'number' || !Number.isInteger(expirationSeconds)) return max;
  const requested = expirationSeconds * 1000;
  return requested > max ? max : requested < MIN_DURATION_MS ? MIN_DURATION_MS : requested;
}

/** PermissiveSigningPolicy.apply's validity window, or its error when the CA has expired. */
export function validity(now: number, ttlMs: number, caNotAfter: number): { notBefore: number; notAfter: number } {
  const notBefore = now - BACKDATE_MS;
  let notAfter = ttlMs < SHORT_MS ? now + ttlMs : now + ttlMs - BACKDATE_MS;
  const goTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, ' +0000 UTC');
  if (notAfter >= caNotAfter) notAfter = caNotAfter;
  if (notBefore >= caNotAfter) throw new Error(`the signer has expired: NotAfter=${goTime(caNotAfter)}`);
  if (now >= caNotAfter) throw new Error(`refusing to sign a certificate that expired in the past: NotAfter=${goTime(caNotAfter)}`);
  return { notBefore, notAfter };
}

export type Decision =
  | { action: 'sign'; req: CertificateRequest; usages: string[] }
  | { action: 'fail'; reason: string; message: string } // a Failed condition (kube's SignerValidationFailure)
  | { action: 'error'; message: string }; // returned and retried with backoff, as kube's handle does

/** The CSR's PEM request parsed, or kube's error for one that does not parse. */
export function requestOf(csr: Obj): CertificateRequest | { error: string } {
  try {
    const bin = atob(String(csr?.spec?.request ?? ''));
    return parseCsrPem(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
  } catch (e) {
    return { error: `unable to parse csr ${JSON.stringify(csr?.metadata?.name ?? '')}: ${(e as Error).message}` };
  }
}

/** ValidateKubeletClientCSR: undefined when the request is a well-formed kubelet client certificate request. */
export const kubeletClientProblem = kubeletClient;

/** signer.handle up to signing: parse the request and run its signer's checks. */
export function decide(csr: Obj): Decision {
  const signerName = String(csr?.spec?.signerName ?? '');
  const usages: string[] = Array.isArray(csr?.spec?.usages) ? csr.spec.usages.map(String) : [];
  const req = requestOf(csr);
  if ('error' in req) return { action: 'error', message: req.error };
  const problem = CHECKS[signerName]!(req, usages);
  if (problem) return { action: 'fail', reason: 'SignerValidationFailure', message: problem };
  return { action: 'sign', req, usages };
}

export interface IssueDeps {
  ca: CaCertificate;
  sign: (tbs: Uint8Array) => Promise<Uint8Array>;
  serial: Uint8Array; // 16 random bytes
  now: number;
  signingDurationSeconds: number;
}

/** The certificate for a request that passed its checks, as PEM (status.certificate). */
export async function issue(req: CertificateRequest, usages: readonly string[], expirationSeconds: unknown, d: IssueDeps): Promise<string> {
  const { notBefore, notAfter } = validity(d.now, certificateTtlMs(expirationSeconds, d.signingDurationSeconds), d.ca.notAfter);
  const tbs = tbsCertificate({ ca: d.ca, req, serial: d.serial, notBefore, notAfter, usages: usagesFromStrings(usages) });
  return encodePem('CERTIFICATE', assembleCertificate(tbs, d.ca, await d.sign(tbs)));
}
