// e2e helper: an admission webhook server on loopback HTTPS with its own certificate, trusted by the gateway the
// test starts next (EDGEPLANE_TRUSTED_CAS names the certificate, so workerd's outbound fetch accepts it).

import { createServer } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localCertificate } from '../../scripts/dual-listener';

export interface WebhookServer {
  /** https://127.0.0.1:<port> */
  base: string;
  /** The certificate as a webhook configuration's clientConfig.caBundle wants it. */
  caBundle: string;
  close(): Promise<void>;
}

/** Listens before it resolves; call before startTestGateway, which reads EDGEPLANE_TRUSTED_CAS. */
export async function startWebhookServer(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<WebhookServer> {
  const certDir = mkdtempSync(join(tmpdir(), 'edgeplane-webhook-'));
  const tls = localCertificate(certDir);
  const server = createServer({ cert: tls.cert, key: tls.key }, handle);
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  process.env.EDGEPLANE_TRUSTED_CAS = join(certDir, 'cert.pem');
  return {
    base: `https://127.0.0.1:${(server.address() as { port: number }).port}`,
    caBundle: Buffer.from(tls.cert).toString('base64'),
    async close() {
      await new Promise((res) => server.close(res));
      delete process.env.EDGEPLANE_TRUSTED_CAS;
      rmSync(certDir, { recursive: true, force: true });
    },
  };
}
