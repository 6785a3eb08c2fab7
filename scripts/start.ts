// Tooling: `npm start`. Serves the gateway on http://127.0.0.1:$PORT (8787) with state in $PERSIST_DIR
// (.edgeplane/state), generates the admin token and the ServiceAccount signing key into .dev.vars on first
// start, and writes ./kubeconfig. With STATIC_POD_DIR set, serves that folder's manifests to the simulated
// kubelets as STATIC_POD_URL (scripts/static-pod-folder.ts).

import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writeKubeconfig } from './gateway';
import { serveAsNpmStart } from './serve';
import { ensureLocalSecrets } from './dev-vars';
import { ROOT } from './root';
import { serveStaticPodFolder } from './static-pod-folder';

const DEV_VARS = join(ROOT, '.dev.vars');

const port = Number(process.env.PORT ?? 8787);
const persistDir = resolve(process.env.PERSIST_DIR ?? join(ROOT, '.edgeplane', 'state'));
mkdirSync(persistDir, { recursive: true });
// Tokens issued before the signing key was added to an older .dev.vars (signed with a key derived from the
// admin token) stop authenticating once it is.
const { ADMIN_TOKEN: token, SERVICE_ACCOUNT_SIGNING_KEY: serviceAccountSigningKey } = ensureLocalSecrets(DEV_VARS, ['ADMIN_TOKEN', 'SERVICE_ACCOUNT_SIGNING_KEY']);
const maxConnections = process.env.MAX_CONNECTIONS ? Number(process.env.MAX_CONNECTIONS) : undefined;
const staticPodDir = process.env.STATIC_POD_DIR ? resolve(process.env.STATIC_POD_DIR) : '';
const staticPods = staticPodDir ? await serveStaticPodFolder(staticPodDir) : undefined;
const vars = staticPods ? { STATIC_POD_URL: staticPods.url, STATIC_POD_PATH: staticPodDir } : undefined;
// Bundled in a child process, so this one never holds the bundler's memory (issue 20: idle RSS).
const gateway = await serveAsNpmStart({ port, persistDir, adminToken: token, serviceAccountSigningKey, listener: { maxConnections }, vars });
const kubeconfig = join(ROOT, 'kubeconfig');
writeKubeconfig(kubeconfig, gateway, token);

console.log(`edgeplane serving on ${gateway.url} and ${gateway.httpsUrl} (state in ${persistDir})`);
console.log(`kubectl: export KUBECONFIG=${kubeconfig}`);
console.log(`console: ${gateway.url}/ui/ (sign in with ADMIN_TOKEN from .dev.vars, or run npm run demo)`);
if (staticPods) console.log(`static pods: ${staticPodDir} served as ${staticPods.url}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    Promise.all([gateway.stop(), staticPods?.close()]).finally(() => process.exit(0));
  });
}
