// Tooling: runs the bundled Worker on Miniflare directly (not `wrangler dev`: ~1 fd per socket instead
// of ~6), with Durable Object state persisted on disk. Used by `npm start`, the e2e tests and benchmarks.

import { Miniflare } from 'miniflare';
import { unstable_getMiniflareWorkerOptions } from 'wrangler';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { bundleWorker, ROOT } from './build';
import { listenDual, localCertificate } from './dual-listener';
import { kubeconfigText } from './kubeconfig-file';

export interface GatewayOptions {
  port: number; // 0 picks a free port
  persistDir: string;
  adminToken?: string; // omitted: no ADMIN_TOKEN secret at all
  vars?: Record<string, string>; // overrides of wrangler.toml [vars], and other secrets
  scriptPath?: string; // a prebuilt bundle (the deploy build) instead of bundling worker/ now
  maxConnections?: number; // open client connections before new ones get 429
}

// Under the 20,000 descriptors a process may hold here: two per proxied connection in this process.
const DEFAULT_MAX_CONNECTIONS = 9000;

export interface Gateway {
  url: string; // plain HTTP
  httpsUrl: string; // the same port over TLS, for kubectl
  caCert: string; // PEM of the self-signed certificate, for kubeconfig
  directUrl: string; // workerd's own HTTP port, without the dual-protocol hop (benchmarks)
  stop(): Promise<void>;
}

export async function startGateway(opts: GatewayOptions): Promise<Gateway> {
  const scriptPath = opts.scriptPath ?? (await bundleWorker());
  const { workerOptions } = unstable_getMiniflareWorkerOptions(join(ROOT, 'wrangler.toml'));
  const mf = new Miniflare({
    modules: true,
    scriptPath,
    compatibilityDate: workerOptions.compatibilityDate,
    compatibilityFlags: workerOptions.compatibilityFlags,
    durableObjects: workerOptions.durableObjects,
    bindings: { ...workerOptions.bindings, ...opts.vars, ...(opts.adminToken ? { ADMIN_TOKEN: opts.adminToken } : {}) },
    durableObjectsPersist: join(opts.persistDir, 'durable-objects'),
    host: '127.0.0.1',
    port: 0,
  });
  const upstream = await mf.ready;
  const tls = localCertificate(join(opts.persistDir, 'tls'));
  const listener = await listenDual(opts.port, Number(upstream.port), tls, opts.maxConnections ?? DEFAULT_MAX_CONNECTIONS);
  const port = listener.port;
  return {
    url: `http://127.0.0.1:${port}`,
    httpsUrl: `https://127.0.0.1:${port}`,
    caCert: tls.cert,
    directUrl: upstream.toString().replace(/\/$/, ''),
    stop: async () => {
      await listener.close();
      await mf.dispose();
    },
  };
}

/** A kubeconfig for kubectl: HTTPS (client-go sends tokens only over TLS), the local CA and the token. */
export function writeKubeconfig(path: string, gateway: Gateway, token: string): void {
  writeFileSync(path, kubeconfigText({ server: gateway.httpsUrl, caCert: gateway.caCert, token }), { mode: 0o600 });
}
