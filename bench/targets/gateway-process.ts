// System under test, in its own process: the gateway as `npm start` runs it (scripts/start.ts calls
// startGateway with the admin token and the ServiceAccount signing key, wrangler.toml's vars, the dual
// HTTP/HTTPS listener on its port), without the files start.ts writes (.dev.vars, ./kubeconfig): state
// and secrets come from the parent (bench/targets/edgeplane.ts) in BENCH_GATEWAY. Prints one JSON line
// when serving, and stops on SIGTERM as start.ts does.

import { serveAsNpmStart } from '../../scripts/serve';

interface Config {
  persistDir: string;
  adminToken: string;
  signingKey: string;
  vars: Record<string, string>;
  inspector: boolean;
}

const config = JSON.parse(process.env.BENCH_GATEWAY ?? '{}') as Config;
const gateway = await serveAsNpmStart({
  port: 0,
  persistDir: config.persistDir,
  adminToken: config.adminToken,
  serviceAccountSigningKey: config.signingKey,
  vars: config.vars,
  ...(config.inspector ? { inspectorPort: 0 } : {}),
});
console.log(JSON.stringify({ ready: true, pid: process.pid, url: gateway.url, directUrl: gateway.directUrl, inspectorPort: gateway.inspectorPort }));

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    gateway.stop().finally(() => process.exit(0));
  });
}
