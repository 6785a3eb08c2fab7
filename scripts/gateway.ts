// Tooling: runs the bundled Worker on Miniflare directly (not `wrangler dev`: ~1 fd per socket instead
// of ~6), with Durable Object state persisted on disk. Used by `npm start`, the e2e tests and benchmarks.

import { Miniflare } from 'miniflare';
import { delimiter, join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { ROOT } from './root';
import { defaultLimits, listenDual, localCertificate, type DualListener, type ListenerLimits } from './dual-listener';
import { kubeconfigText } from './kubeconfig-file';
import { wranglerWorkerOptions } from './wrangler-options';

export interface GatewayOptions {
  port: number; // 0 picks a free port
  persistDir: string;
  // Secrets, only from here (see SECRETS): the admin token, and the ServiceAccount signing key (derived
  // from the admin token when omitted; with neither, the Worker answers every request 503).
  adminToken?: string;
  serviceAccountSigningKey?: string;
  vars?: Record<string, string>; // overrides of wrangler.toml [vars]
  scriptPath?: string; // a prebuilt bundle (the deploy build) instead of bundling worker/ now
  // The local listener's bounds (scripts/dual-listener.ts ListenerLimits); unset ones follow `ulimit -n`.
  listener?: Partial<ListenerLimits>;
  /**
   * Where the listener sends clients' bytes. 'direct' (the default): a socket straight to this Worker. 'entry':
   * Miniflare's entry Worker, which sets request.cf (Miniflare's local stand-in) and CF-Connecting-IP (the
   * listener's address) and gzips responses for the client's Accept-Encoding, then calls this Worker — a hop that
   * pumps every WebSocket message through JavaScript: workerd spent 31.8–46.8 µs per delivery through it against
   * 23.7 direct at W = 1,000, and 10–17% more CPU per pod create (bench/README.md). Direct requests carry no
   * request.cf (no continent-based replica hint, as on workerd's own) and the listener's address comes as the
   * LOCAL_PEER_ADDRESS setting (audit events' sourceIPs) instead of CF-Connecting-IP.
   */
  listenerUpstream?: 'entry' | 'direct';
  inspectorPort?: number; // open workerd's V8 inspector here (0: a free port; see Gateway.inspectorPort); benchmarks' heap figures and profiles
}

// wrangler also reads .dev.vars; dropping its secrets keeps a test or benchmark gateway from serving with a
// developer's tokens, and lets a caller start one with no secrets at all.
const SECRETS = ['ADMIN_TOKEN', 'SERVICE_ACCOUNT_SIGNING_KEY'];

export interface Gateway {
  url: string; // plain HTTP
  httpsUrl: string; // the same port over TLS, for kubectl
  caCert: string; // PEM of the self-signed certificate, for kubeconfig
  directUrl: string; // workerd's own HTTP port, without the dual-protocol hop (benchmarks)
  inspectorPort?: number; // workerd's inspector, when GatewayOptions.inspectorPort was given
  listener(): ReturnType<DualListener['stats']>; // the local listener's connection counts (diagnostics)
  // Starts a new Workers runtime process on the same state and ports, as a deploy restarts every object: each open
  // socket and stream drops at once (also after the old process was killed; the robustness suite does both).
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startGateway(opts: GatewayOptions): Promise<Gateway> {
  // The bundler is loaded only when this process bundles (npm start bundles in a child: scripts/build.ts).
  const scriptPath = opts.scriptPath ?? (await (await import('./build')).bundleWorker());
  const workerOptions = wranglerWorkerOptions(join(ROOT, 'wrangler.toml'), ROOT);
  const bindings: Record<string, unknown> = { ...workerOptions.bindings };
  for (const name of SECRETS) delete bindings[name];
  // The local listener's self-signed certificate is the cluster's CA: kube-root-ca.crt publishes it.
  const tls = localCertificate(join(opts.persistDir, 'tls'));
  bindings.ROOT_CA_CERT = tls.cert;
  // ...and signs approved CertificateSigningRequests (kube-controller-manager's cluster signing CA).
  bindings.CLUSTER_SIGNING_CERT = tls.cert;
  bindings.CLUSTER_SIGNING_KEY = tls.key;
  const direct = (opts.listenerUpstream ?? 'direct') === 'direct';
  if (direct) bindings.LOCAL_PEER_ADDRESS = '127.0.0.1'; // what the entry Worker's CF-Connecting-IP said
  Object.assign(bindings, opts.vars);
  if (opts.adminToken) bindings.ADMIN_TOKEN = opts.adminToken;
  if (opts.serviceAccountSigningKey) bindings.SERVICE_ACCOUNT_SIGNING_KEY = opts.serviceAccountSigningKey;
  const options: ConstructorParameters<typeof Miniflare>[0] = {
    modules: true,
    scriptPath,
    compatibilityDate: workerOptions.compatibilityDate,
    compatibilityFlags: workerOptions.compatibilityFlags,
    durableObjects: workerOptions.durableObjects,
    bindings: bindings as Record<string, string>,
    durableObjectsPersist: join(opts.persistDir, 'durable-objects'),
    host: '127.0.0.1',
    port: 0,
    ...(opts.inspectorPort === undefined ? {} : { inspectorPort: opts.inspectorPort }),
    ...webhookTrust(),
    // A second socket straight to the Worker, past Miniflare's entry Worker (see GatewayOptions.listenerUpstream).
    ...(direct ? { unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }] } : {}),
  };
  const mf = new Miniflare(options);
  const upstream = await mf.ready;
  const inspectorPort = opts.inspectorPort === undefined ? undefined : Number((await mf.getInspectorURL()).port);
  const limits = { ...defaultLimits(), ...definedOnly(opts.listener ?? {}) };
  // restart() keeps both sockets' ports (Miniflare reuses a port it picked), so the listener's upstream stays valid.
  const listenerUpstream = direct ? Number((await mf.unsafeGetDirectURL()).port) : Number(upstream.port);
  const listener = await listenDual(opts.port, listenerUpstream, tls, limits);
  const port = listener.port;
  // Any request wakes the controller manager (worker/controllers.ts); send one so loops run without user action.
  await fetch(new URL('/healthz', upstream)).then((r) => r.text()).catch(() => undefined);
  return {
    url: `http://127.0.0.1:${port}`,
    httpsUrl: `https://127.0.0.1:${port}`,
    caCert: tls.cert,
    directUrl: upstream.toString().replace(/\/$/, ''),
    inspectorPort,
    listener: () => listener.stats(),
    restart: async () => {
      await mf.setOptions(options); // port 0 again: Miniflare keeps the port it had
      await fetch(new URL('/healthz', upstream)).then((r) => r.text()).catch(() => undefined);
    },
    stop: async () => {
      await listener.close();
      await mf.dispose();
    },
  };
}

/**
 * Admission webhooks are called with the Workers runtime's fetch, which trusts public CAs only (a webhook's
 * caBundle cannot be applied). Locally, EDGEPLANE_TRUSTED_CAS lists PEM files (path-separated) whose CAs the
 * gateway's outbound fetch trusts besides them, so a webhook on loopback with a self-signed certificate works.
 */
function webhookTrust(): { outboundService?: { network: { allow: string[]; tlsOptions: { trustBrowserCas: boolean; trustedCertificates: string[] } } } } {
  const files = (process.env.EDGEPLANE_TRUSTED_CAS ?? '').split(delimiter).filter(Boolean);
  if (!files.length) return {};
  return {
    outboundService: {
      network: { allow: ['public', 'private', 'local'], tlsOptions: { trustBrowserCas: true, trustedCertificates: files.map((f) => readFileSync(f, 'utf8')) } },
    },
  };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** A kubeconfig for kubectl: HTTPS (client-go sends tokens only over TLS), the local CA and the token. */
export function writeKubeconfig(path: string, gateway: Gateway, token: string): void {
  writeFileSync(path, kubeconfigText({ server: gateway.httpsUrl, caCert: gateway.caCert, token }), { mode: 0o600 });
}
