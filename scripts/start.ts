// Tooling: `npm start`. Serves the gateway on http://127.0.0.1:$PORT (8787) with state in $PERSIST_DIR
// (.edgeplane/state), generates the admin token into .dev.vars on first start, and writes ./kubeconfig.

import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startGateway, writeKubeconfig } from './gateway';
import { ROOT } from './build';

const DEV_VARS = join(ROOT, '.dev.vars');

function adminToken(): string {
  const existing = existsSync(DEV_VARS) ? /^ADMIN_TOKEN\s*=\s*"?([^"\n]+)"?/m.exec(readFileSync(DEV_VARS, 'utf8')) : null;
  if (existing) return existing[1];
  const token = randomBytes(32).toString('base64url');
  const previous = existsSync(DEV_VARS) ? readFileSync(DEV_VARS, 'utf8') : '';
  writeFileSync(DEV_VARS, `${previous}ADMIN_TOKEN="${token}"\n`, { mode: 0o600 });
  return token;
}

const port = Number(process.env.PORT ?? 8787);
const persistDir = resolve(process.env.PERSIST_DIR ?? join(ROOT, '.edgeplane', 'state'));
mkdirSync(persistDir, { recursive: true });
const token = adminToken();
const maxConnections = process.env.MAX_CONNECTIONS ? Number(process.env.MAX_CONNECTIONS) : undefined;
const gateway = await startGateway({ port, persistDir, adminToken: token, maxConnections });
const kubeconfig = join(ROOT, 'kubeconfig');
writeKubeconfig(kubeconfig, gateway, token);

console.log(`edgeplane serving on ${gateway.url} and ${gateway.httpsUrl} (state in ${persistDir})`);
console.log(`kubectl: export KUBECONFIG=${kubeconfig}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    gateway.stop().finally(() => process.exit(0));
  });
}
