// Tooling: `npm run kubeconfig -- --server https://edgeplane.<account>.workers.dev --token <token>` writes a kubeconfig
// for a deployed gateway. The token is the admin token, a static token's, or a ServiceAccount token from
// `kubectl create token <sa>`; pass it with --token, --token-file or the EDGEPLANE_TOKEN environment variable.
//
// Options: --server URL (required, https), --token T | --token-file F, --user NAME (default admin),
//          --namespace NS (default default), --ca-file PEM (only for a private CA), --out PATH (default ./kubeconfig.remote)

import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { kubeconfigText } from './kubeconfig-file';

export function kubeconfigFromArgs(argv: string[], env: Record<string, string | undefined> = process.env): { path: string; text: string } {
  const { values } = parseArgs({
    args: argv,
    options: {
      server: { type: 'string' }, token: { type: 'string' }, 'token-file': { type: 'string' }, user: { type: 'string' },
      namespace: { type: 'string' }, 'ca-file': { type: 'string' }, out: { type: 'string' },
    },
  });
  if (!values.server) throw new Error('--server is required, e.g. --server https://edgeplane.example.workers.dev');
  const server = new URL(values.server);
  // client-go only sends bearer tokens over TLS; a plain-HTTP server would silently get anonymous requests.
  if (server.protocol !== 'https:') throw new Error(`--server must be https:// (kubectl sends tokens only over TLS), got ${values.server}`);
  const token = values.token ?? (values['token-file'] ? readFileSync(values['token-file'], 'utf8').trim() : env.EDGEPLANE_TOKEN);
  if (!token) throw new Error('a token is required: --token, --token-file or EDGEPLANE_TOKEN');
  const text = kubeconfigText({
    server: server.origin + server.pathname.replace(/\/$/, ''), token, user: values.user, namespace: values.namespace,
    caCert: values['ca-file'] ? readFileSync(values['ca-file'], 'utf8') : undefined,
  });
  return { path: values.out ?? 'kubeconfig.remote', text };
}

if (process.argv[1]?.endsWith('kubeconfig.ts')) {
  try {
    const { path, text } = kubeconfigFromArgs(process.argv.slice(2));
    writeFileSync(path, text, { mode: 0o600 });
    console.log(`wrote ${path}\n  export KUBECONFIG=$PWD/${path}\n  kubectl get ns`);
  } catch (e) {
    console.error(`kubeconfig: ${(e as Error).message}`);
    process.exit(2);
  }
}
