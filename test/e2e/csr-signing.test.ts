// CSR signing end to end with /usr/bin/kubectl and the controller manager running: a user's CSR for
// kubernetes.io/kube-apiserver-client, approved with `kubectl certificate approve`, gets a certificate signed by
// the gateway's CA (the local listener's certificate, as `npm start` sets CLUSTER_SIGNING_CERT/KEY) that
// node:crypto verifies, and `kubectl get csr` shows Approved,Issued; a kubelet client CSR whose subject breaks
// its signer's rules shows Approved,Failed with kube's reason; a kubelet's own client CSR is approved by kube's
// approver once its group may create certificatesigningrequests/selfnodeclient.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { http, kubectl, startTestGateway, stopTestGateway, type Running, waitFor } from './fixtures';

async function must(r: Running, args: string[], stdin?: string) {
  const res = await kubectl(r, args, stdin);
  if (res.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${res.code}): ${res.stderr}`);
  return res.stdout;
}

const tmp = mkdtempSync(join(tmpdir(), 'csr-e2e-'));
function request(name: string, subj: string): string {
  const out = join(tmp, `${name}.csr`);
  execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(tmp, `${name}.key`),
    '-subj', subj, '-out', out], { stdio: 'ignore' });
  return readFileSync(out).toString('base64');
}

const manifest = (name: string, req: string, signer: string, usages: string[], extra = '') => `apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: {name: ${name}}
spec: {request: ${req}, signerName: ${signer}, usages: [${usages.join(', ')}]${extra}}
`;

describe('CertificateSigningRequests signed by the gateway\'s CA', () => {
  let r: Running;
  beforeAll(async () => {
    r = await startTestGateway({ vars: { CONTROLLERS: 'on', SIMULATED_NODES: '0' } });
  });
  afterAll(async () => {
    await stopTestGateway(r);
    rmSync(tmp, { recursive: true, force: true });
  });

  it('issues a client certificate for an approved CSR, verifiable against the CA', async () => {
    await must(r, ['apply', '-f', '-'], manifest('alice', request('alice', '/O=dev/CN=alice'), 'kubernetes.io/kube-apiserver-client', ['client auth'], ', expirationSeconds: 86400'));
    await must(r, ['certificate', 'approve', 'alice']);
    const b64 = await waitFor('the certificate', async () => (await must(r, ['get', 'csr', 'alice', '-o', 'jsonpath={.status.certificate}'])) || undefined);
    const cert = new X509Certificate(Buffer.from(b64, 'base64'));
    const ca = new X509Certificate(r.gateway.caCert);
    expect(cert.subject).toBe('O=dev\nCN=alice');
    expect(cert.issuer).toBe(ca.subject);
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(Date.parse(cert.validTo) - Date.parse(cert.validFrom)).toBe(86_400_000); // a day, less its 5-minute backdate, plus it
    const table = await must(r, ['get', 'csr', 'alice']);
    // REQUESTOR is who created it, recorded by the server whatever the body said.
    const me = await must(r, ['auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}']);
    expect(table).toMatch(new RegExp(`^alice\\s+\\S+\\s+kubernetes\\.io/kube-apiserver-client\\s+${me.trim()}\\s+24h\\s+Approved,Issued$`, 'm'));
  });

  it('fails a CSR its signer refuses, with kube\'s reason', async () => {
    await must(r, ['apply', '-f', '-'], manifest('node-bad', request('node-bad', '/O=dev/CN=system:node:n1'), 'kubernetes.io/kube-apiserver-client-kubelet', ['digital signature', 'client auth']));
    await must(r, ['certificate', 'approve', 'node-bad']);
    const failed = await waitFor('the Failed condition', async () => {
      const o = (await http(r, 'GET', '/apis/certificates.k8s.io/v1/certificatesigningrequests/node-bad')).json;
      return o?.status?.conditions?.find((c: any) => c.type === 'Failed');
    });
    expect(failed).toMatchObject({ status: 'True', reason: 'SignerValidationFailure', message: 'subject organization is not system:nodes' });
    expect(await must(r, ['get', 'csr', 'node-bad'])).toMatch(/Approved,Failed$/m);
  });

  it('auto-approves a kubelet renewing its own client certificate when its group may (kube\'s approver), and issues it', async () => {
    // kube binds nothing to selfnodeclient by default (kubeadm does, for system:nodes); without the binding the CSR waits.
    const node = ['--as=system:node:node-1', '--as-group=system:nodes'];
    await must(r, [...node, 'apply', '-f', '-'], manifest('node-1-early', request('node-1-early', '/O=system:nodes/CN=system:node:node-1'), 'kubernetes.io/kube-apiserver-client-kubelet', ['digital signature', 'client auth']));
    await must(r, ['create', 'clusterrolebinding', 'nodes-renew', '--clusterrole=system:certificates.k8s.io:certificatesigningrequests:selfnodeclient', '--group=system:nodes']);
    await must(r, [...node, 'apply', '-f', '-'], manifest('node-1', request('node-1', '/O=system:nodes/CN=system:node:node-1'), 'kubernetes.io/kube-apiserver-client-kubelet', ['digital signature', 'client auth']));
    const approved = await waitFor('the approval', async () => {
      const o = (await http(r, 'GET', '/apis/certificates.k8s.io/v1/certificatesigningrequests/node-1')).json;
      return o?.status?.certificate ? o : undefined;
    });
    expect(approved.spec).toMatchObject({ username: 'system:node:node-1', groups: expect.arrayContaining(['system:nodes']) });
    expect(approved.status.conditions[0]).toMatchObject({ type: 'Approved', status: 'True', reason: 'AutoApproved',
      message: 'Auto approving self kubelet client certificate after SubjectAccessReview.' });
    expect(new X509Certificate(Buffer.from(approved.status.certificate, 'base64')).subject).toBe('O=system:nodes\nCN=system:node:node-1');
    // The one made before the binding is retried with backoff (kube's ignorable error), so it may be approved by now too;
    // a request from someone who is not the node and holds no nodeclient permission never is.
    await must(r, ['create', 'serviceaccount', 'stranger', '-n', 'default']);
    await must(r, ['create', 'clusterrole', 'csr-maker', '--verb=create,get', '--resource=certificatesigningrequests']);
    await must(r, ['create', 'clusterrolebinding', 'csr-maker', '--clusterrole=csr-maker', '--serviceaccount=default:stranger']);
    await must(r, ['--as=system:serviceaccount:default:stranger', 'apply', '-f', '-'], manifest('stranger', request('stranger', '/O=system:nodes/CN=system:node:node-2'), 'kubernetes.io/kube-apiserver-client-kubelet', ['digital signature', 'client auth']));
    // The stranger is not the certificate's CN (no selfnodeclient review) and may not create nodeclient CSRs.
    const strangers = await waitFor('the stranger\'s CSR to be reviewed and left', async () => {
      const o = (await http(r, 'GET', '/apis/certificates.k8s.io/v1/certificatesigningrequests/stranger')).json;
      return o?.spec?.username === 'system:serviceaccount:default:stranger' ? o : undefined;
    });
    expect(strangers.status?.conditions ?? []).toEqual([]);
    expect(await must(r, ['get', 'csr', 'stranger'])).toMatch(/Pending$/m);
  });
});
