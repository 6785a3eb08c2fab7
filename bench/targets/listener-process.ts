// Reference harness (a child process): one dual HTTP/HTTPS listener (scripts/dual-listener.ts, or the module named
// by LISTENER_MODULE, e.g. another checkout's) in front of UPSTREAM_PORT, alone in its process so its CPU can be
// read from /proc. Prints {"port":…} when listening. Used by bench/listener.ts.

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';

const modulePath = process.env.LISTENER_MODULE ?? join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'scripts', 'dual-listener.ts');
const upstream = Number(process.env.UPSTREAM_PORT);
const mod = (await import(modulePath)) as typeof import('../../scripts/dual-listener');
const tls = mod.localCertificate(join(tmpdir(), 'edgeplane-listener-bench-tls'));
const listener = await mod.listenDual(0, upstream, tls);
console.log(JSON.stringify({ port: listener.port }));
process.on('SIGTERM', () => {
  listener.close().finally(() => process.exit(0));
});
