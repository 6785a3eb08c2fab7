// kube's CSR signer (controllers/csr.ts over core/certificates/*) with fakes and real keys made by openssl: an
// approved CSR of each kubernetes.io signer gets a certificate that node:crypto parses — subject, issuer, validity,
// usages, SANs — and that verifies against the CA (EC P-256 and RSA CAs); expirationSeconds is honoured down to
// kube's 10 minutes; usages and subjects a signer refuses get kube's Failed condition; unapproved, denied,
// foreign-signer and already-issued CSRs are left alone; a CA key that is not the certificate's is refused.
import { describe, expect, it, beforeAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import type { KubeObject } from '../../client/types';
import { CsrSigningController, CSRS, webCryptoSigner } from '../../controllers/csr';
import { parseCsrPem } from '../../core/certificates/csr';
import { certificateTtlMs, validity } from '../../core/certificates/signer';
import { FakeApi, FakeClock, FakeInformer } from './fakes';

type Obj = Record<string, any>;
const dir = mkdtempSync(join(tmpdir(), 'csr-test-'));
const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'pipe', 'ignore'] });

function makeCa(name: string, keyArgs: string[]): { cert: string; key: string } {
  const key = join(dir, `${name}.key`), cert = join(dir, `${name}.crt`);
  openssl('req', '-x509', '-newkey', ...keyArgs, '-nodes', '-days', '3650', '-subj', `/CN=${name}`,
    '-addext', 'basicConstraints=critical,CA:TRUE', '-keyout', key, '-out', cert);
  return { cert: readFileSync(cert, 'utf8'), key: readFileSync(key, 'utf8') };
}

/** A base64 PEM CSR for `subj`, with extra -addext SANs. */
function makeCsr(name: string, subj: string, san?: string, keyArgs = ['ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1']): string {
  const out = join(dir, `${name}.csr`);
  openssl('req', '-new', '-newkey', ...keyArgs, '-nodes', '-keyout', join(dir, `${name}.key`), '-subj', subj, ...(san ? ['-addext', `subjectAltName=${san}`] : []), '-out', out);
  return readFileSync(out).toString('base64');
}

const EC = ['ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1'];
let ecCa: { cert: string; key: string }, rsaCa: { cert: string; key: string };
beforeAll(() => {
  ecCa = makeCa('ec-ca', EC);
  rsaCa = makeCa('rsa-ca', ['rsa:2048']);
});

function csr(name: string, request: string, signerName: string, usages: string[], extra: Obj = {}): KubeObject {
  return {
    apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name, uid: `${name}-uid`, resourceVersion: '1' },
    spec: { request, signerName, usages, ...extra },
    status: { conditions: [{ type: 'Approved', status: 'True', reason: 'KubectlApprove', message: 'ok' }] },
  } as KubeObject;
}

async function setup(ca = ecCa) {
  const clock = new FakeClock();
  const api = new FakeApi();
  const csrs = new FakeInformer();
  const signer = await webCryptoSigner(ca.cert, ca.key);
  const c = new CsrSigningController({ api, csrs, signer, clock, signingDurationSeconds: 365 * 24 * 3600, randomBytes: (n) => crypto.getRandomValues(new Uint8Array(n)) });
  const run = async (o: KubeObject) => {
    api.put(CSRS, o);
    csrs.add(o);
    await c.sync(o.metadata.name!);
    return api.objects.get(`certificatesigningrequests//${o.metadata.name}`) as Obj;
  };
  return { clock, api, csrs, c, run };
}

const issued = (o: Obj) => new X509Certificate(Buffer.from(o.status.certificate, 'base64'));

describe('CSR signing', () => {
  it('reads a PKCS#10 request as Go does: subject fields and subjectAltNames', () => {
    const b64 = makeCsr('parse', '/C=NZ/O=system:nodes/O=second/CN=system:node:node-1', 'DNS:node-1.local,IP:10.0.1.1,IP:::1,email:a@b.c,URI:spiffe://x/y');
    const req = parseCsrPem(Buffer.from(b64, 'base64'));
    expect(req.subject).toMatchObject({ country: ['NZ'], organization: ['system:nodes', 'second'], commonName: 'system:node:node-1' });
    expect(req.dnsNames).toEqual(['node-1.local']);
    expect(req.emailAddresses).toEqual(['a@b.c']);
    expect(req.uris).toEqual(['spiffe://x/y']);
    expect(req.ipAddresses.map((b) => b.length)).toEqual([4, 16]);
    expect(() => parseCsrPem(Buffer.from('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'))).toThrow('PEM block type must be CERTIFICATE REQUEST');
    expect(() => parseCsrPem(Buffer.from('-----BEGIN CERTIFICATE REQUEST-----\nMAMCAQA=\n-----END CERTIFICATE REQUEST-----\n'))).toThrow(/^x509: malformed certificate request/);
  });

  it('issues a kube-apiserver-client certificate that verifies against the EC CA, with the subject, usages and lifetime kube gives', async () => {
    const { run, clock } = await setup();
    const o = await run(csr('alice', makeCsr('alice', '/O=dev/O=ops/CN=alice'), 'kubernetes.io/kube-apiserver-client', ['client auth', 'digital signature'], { expirationSeconds: 3600 }));
    const cert = issued(o);
    const ca = new X509Certificate(ecCa.cert);
    // Go's pkix.Name writes one RDN per attribute type: both organizations share one.
    expect(cert.subject).toBe('O=dev + O=ops\nCN=alice');
    expect(cert.issuer).toBe(ca.subject);
    expect(cert.checkIssued(ca)).toBe(true);
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    // One hour is shorter than 8 h: not backdated at its end; the start is 5 minutes back.
    expect(Date.parse(cert.validFrom)).toBe(clock.now() - 5 * 60_000);
    expect(Date.parse(cert.validTo)).toBe(clock.now() + 3600_000);
    expect(cert.serialNumber).toMatch(/^[0-9A-F]+$/);
    expect(cert.toLegacyObject().ext_key_usage ?? []).toEqual(['1.3.6.1.5.5.7.3.2']);
    // openssl reads the extensions as Go writes them.
    writeFileSync(join(dir, 'alice.crt'), cert.toString());
    const text = execFileSync('openssl', ['x509', '-in', join(dir, 'alice.crt'), '-noout', '-text'], { encoding: 'utf8' });
    expect(text).toMatch(/X509v3 Key Usage: critical\s+Digital Signature/);
    expect(text).toMatch(/X509v3 Basic Constraints: critical\s+CA:FALSE/);
    expect(text).toMatch(/X509v3 Extended Key Usage:\s+TLS Web Client Authentication/);
    expect(text).toMatch(/X509v3 Authority Key Identifier/);
  });

  it('issues kubelet serving and client certificates from an RSA CA, keeping the serving SANs', async () => {
    const { run } = await setup(rsaCa);
    const serving = issued(await run(csr('serving', makeCsr('serving', '/O=system:nodes/CN=system:node:node-1', 'DNS:node-1,IP:10.0.1.1'),
      'kubernetes.io/kubelet-serving', ['digital signature', 'key encipherment', 'server auth'])));
    expect(serving.subjectAltName).toBe('DNS:node-1, IP Address:10.0.1.1');
    expect(serving.verify(new X509Certificate(rsaCa.cert).publicKey)).toBe(true);
    expect(serving.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    const client = issued(await run(csr('kubelet', makeCsr('kubelet', '/O=system:nodes/CN=system:node:node-1', undefined, ['rsa:2048']),
      'kubernetes.io/kube-apiserver-client-kubelet', ['digital signature', 'client auth'])));
    expect(client.subject).toBe('O=system:nodes\nCN=system:node:node-1');
    expect(client.verify(new X509Certificate(rsaCa.cert).publicKey)).toBe(true);
  });

  it('fails what a signer refuses, with kube\'s messages', async () => {
    const { run } = await setup();
    const failed = async (name: string, subj: string, signer: string, usages: string[], san?: string) => {
      const o = await run(csr(name, makeCsr(name, subj, san), signer, usages));
      expect(o.status.certificate).toBeUndefined();
      const c = o.status.conditions.find((x: Obj) => x.type === 'Failed');
      expect(c).toMatchObject({ status: 'True', reason: 'SignerValidationFailure' });
      return c.message;
    };
    expect(await failed('f1', '/CN=bob', 'kubernetes.io/kube-apiserver-client', ['server auth'])).toBe('invalid usage for client certificate: server auth');
    expect(await failed('f2', '/CN=bob', 'kubernetes.io/kube-apiserver-client', ['digital signature'])).toBe('missing required usage for client certificate: client auth');
    expect(await failed('f3', '/O=dev/CN=system:node:n', 'kubernetes.io/kube-apiserver-client-kubelet', ['digital signature', 'client auth'])).toBe('subject organization is not system:nodes');
    expect(await failed('f4', '/O=system:nodes/CN=n', 'kubernetes.io/kube-apiserver-client-kubelet', ['digital signature', 'client auth'])).toBe('subject common name does not begin with system:node:');
    expect(await failed('f5', '/O=system:nodes/CN=system:node:n', 'kubernetes.io/kube-apiserver-client-kubelet', ['client auth'])).toBe('usages did not match [client auth digital signature key encipherment]');
    expect(await failed('f6', '/O=system:nodes/CN=system:node:n', 'kubernetes.io/kubelet-serving', ['digital signature', 'server auth'])).toBe('DNS or IP subjectAltName is required');
    expect(await failed('f7', '/O=system:nodes/CN=system:node:n', 'kubernetes.io/kube-apiserver-client-kubelet', ['digital signature', 'client auth'], 'DNS:x')).toBe('DNS subjectAltNames are not allowed');
    // A Failed CSR is not looked at again.
    const { run: again, api } = await setup();
    const o = await again(csr('f8', makeCsr('f8', '/CN=bob'), 'kubernetes.io/kube-apiserver-client', ['server auth']));
    const writes = api.calls.filter((x) => x.verb === 'update').length;
    await again(o as KubeObject);
    expect(api.calls.filter((x) => x.verb === 'update').length).toBe(writes);
  });

  it('leaves unapproved, denied, issued and other signers\' CSRs alone', async () => {
    const { run, api } = await setup();
    const req = makeCsr('alone', '/CN=carol');
    const pending = { ...csr('p', req, 'kubernetes.io/kube-apiserver-client', ['client auth']), status: {} } as KubeObject;
    const denied = { ...csr('d', req, 'kubernetes.io/kube-apiserver-client', ['client auth']), status: { conditions: [{ type: 'Denied', status: 'True' }] } } as KubeObject;
    const other = csr('o', req, 'example.com/signer', ['client auth']);
    const done = { ...csr('i', req, 'kubernetes.io/kube-apiserver-client', ['client auth']) } as Obj;
    done.status = { ...done.status, certificate: 'AAAA' };
    for (const o of [pending, denied, other, done as KubeObject]) await run(o);
    expect(api.calls.filter((x) => x.verb === 'update')).toEqual([]);
  });

  it('bounds the lifetime as kube does: the signing duration, expirationSeconds down to 10 minutes, never past the CA', () => {
    const year = 365 * 24 * 3600;
    expect(certificateTtlMs(undefined, year)).toBe(year * 1000);
    expect(certificateTtlMs(60, year)).toBe(600_000);
    expect(certificateTtlMs(2 * year, year)).toBe(year * 1000);
    const now = Date.UTC(2026, 0, 1);
    expect(validity(now, 24 * 3600_000, now + 3600_000)).toEqual({ notBefore: now - 300_000, notAfter: now + 3600_000 });
    expect(validity(now, 24 * 3600_000, now + 48 * 3600_000).notAfter).toBe(now + 24 * 3600_000 - 300_000);
    expect(() => validity(now, 3600_000, now - 600_000)).toThrow('the signer has expired: NotAfter=2025-12-31 23:50:00 +0000 UTC');
    expect(() => validity(now, 3600_000, now - 1000)).toThrow('refusing to sign a certificate that expired in the past: NotAfter=2025-12-31 23:59:59 +0000 UTC');
  });

  it('refuses a CA key that is not its certificate\'s', async () => {
    await expect(webCryptoSigner(ecCa.cert, makeCa('other', EC).key)).rejects.toThrow('tls: private key does not match public key');
  });
});
