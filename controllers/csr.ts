// Controllers: kube-controller-manager's CSR signing controllers (kubernetes pkg/controller/certificates/signer
// over certificate_controller.go, 1.32), as one loop over core/certificates/signer.ts: an approved, unfailed
// CertificateSigningRequest for kubernetes.io/kube-apiserver-client, kube-apiserver-client-kubelet or
// kubelet-serving without a certificate gets one in status.certificate, signed by the cluster CA
// (CLUSTER_SIGNING_CERT/CLUSTER_SIGNING_KEY, kube's --cluster-signing-cert-file/--cluster-signing-key-file), or
// kube's Failed condition (SignerValidationFailure) when its usages or subject break the signer's rules. It runs
// as certificate-controller, as kube's does. Without a CA the loop is not started, as kube skips it.

import type { KubeObject } from '../client/types';
import { errorText, type Api, type ResourceRef } from './api-client';
import type { Clock } from './clock';
import type { SharedInformer } from './informers';
import { logSyncError, runWorker, WorkQueue } from './workqueue';
import { checkRequestSignature, importCaKey, signData } from '../core/certificates/keys';
import { decodePem, bytesToBase64 } from '../core/certificates/pem';
import { decide, issue, wantsSigning } from '../core/certificates/signer';
import { parseCaCertificate, type CaCertificate } from '../core/certificates/x509';

export const COMPONENT = 'certificate-controller';
export const CSRS: ResourceRef = { group: 'certificates.k8s.io', version: 'v1', resource: 'certificatesigningrequests', namespaced: false };

type Obj = Record<string, any>;

/** The cluster CA as the signer uses it: its certificate's fields and a signing function. */
export interface ClusterSigner {
  ca: CaCertificate;
  sign(tbs: Uint8Array): Promise<Uint8Array>;
  checkRequest(req: Parameters<typeof checkRequestSignature>[1]): Promise<void>;
}

/** The CA from its PEM certificate and key through WebCrypto; throws kube's load errors. */
export async function webCryptoSigner(certPem: string, keyPem: string, subtle: SubtleCrypto = crypto.subtle): Promise<ClusterSigner> {
  const block = decodePem(certPem);
  if (!block || block.type !== 'CERTIFICATE') throw new Error('error reading CA cert file: data does not contain any valid RSA or ECDSA certificates');
  const ca = parseCaCertificate(block.der);
  const key = await importCaKey(subtle, keyPem, ca);
  return { ca, sign: (tbs) => signData(subtle, key, tbs), checkRequest: (req) => checkRequestSignature(subtle, req) };
}

export interface CsrSigningDeps {
  api: Api;
  csrs: SharedInformer;
  signer: ClusterSigner;
  clock: Clock;
  signingDurationSeconds: number;
  randomBytes: (n: number) => Uint8Array;
}

export class CsrSigningController {
  readonly queue: WorkQueue;

  constructor(private readonly d: CsrSigningDeps) {
    this.queue = new WorkQueue(d.clock);
    const enqueue = (o: KubeObject) => {
      if (wantsSigning(o)) this.queue.add(o.metadata.name!);
    };
    d.csrs.addHandlers({ add: enqueue, update: enqueue });
  }

  run(workers = 5): Promise<void>[] {
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), { onError: logSyncError(COMPONENT) }));
  }

  async sync(name: string): Promise<void> {
    const cached = this.d.csrs.get(name);
    if (!cached || !wantsSigning(cached)) return;
    const csr = structuredClone(cached) as Obj;
    const decision = decide(csr);
    if (decision.action === 'error') throw new Error(decision.message);
    const now = this.d.clock.now();
    const stamp = new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
    csr.status = csr.status ?? {};
    if (decision.action === 'fail') {
      csr.status.conditions = [...(Array.isArray(csr.status.conditions) ? csr.status.conditions : []),
        { type: 'Failed', status: 'True', reason: decision.reason, message: decision.message, lastUpdateTime: stamp, lastTransitionTime: stamp }];
      try {
        await this.d.api.update(CSRS, csr as KubeObject, 'status');
      } catch (e) {
        throw new Error(`error adding failure condition for csr: ${errorText(e)}`);
      }
      return;
    }
    let pem: string;
    try {
      await this.d.signer.checkRequest(decision.req).catch((e) => {
        throw new Error(`unable to verify certificate request signature: ${(e as Error).message}`);
      });
      pem = await issue(decision.req, decision.usages, csr.spec?.expirationSeconds, {
        ca: this.d.signer.ca, sign: (tbs) => this.d.signer.sign(tbs), serial: this.d.randomBytes(16), now,
        signingDurationSeconds: this.d.signingDurationSeconds,
      });
    } catch (e) {
      throw new Error(`error auto signing csr: ${(e as Error).message}`);
    }
    csr.status.certificate = bytesToBase64(new TextEncoder().encode(pem));
    try {
      await this.d.api.update(CSRS, csr as KubeObject, 'status');
    } catch (e) {
      throw new Error(`error updating signature for csr: ${errorText(e)}`);
    }
  }
}
