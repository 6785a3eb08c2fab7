// Static pods under a hostile manifest source (issue 18's shape): STATIC_POD_URL answers just under the 1 MiB
// bound of YAML that differs at every read, read every second, so the simulated kubelets parse it again and
// again in the controller manager's isolate; another tenant's requests must keep their latency meanwhile.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, stopTestGateway, type Running, waitFor } from './fixtures';
import { Victim } from './hostile';

// 60 KiB documents of block mappings (the yaml package's slowest input per byte that is still read: under the
// 64 KiB a document may have), not pods, so the cost measured is reading, not creating.
const doc = (n: number, d: number) => `kind: ConfigMap\nread: ${n}\ndata:\n${Array.from({ length: 4000 }, (_, i) => `  key${d}x${i}: v`).join('\n')}`;

describe('static pods: a hostile manifest source', () => {
  let r: Running;
  let server: Server;
  let reads = 0;
  let hostile = false;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      reads++;
      res.writeHead(200, { 'content-type': 'application/yaml' });
      res.end(hostile ? Array.from({ length: 16 }, (_, d) => doc(reads, d)).join('\n---\n') : '');
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/manifests.yaml`;
    r = await startTestGateway({ vars: { CONTROLLERS: 'on', SIMULATED_NODES: '2', STATIC_POD_URL: url, STATIC_POD_CHECK_SECONDS: '1' } });
  });
  afterAll(async () => {
    await stopTestGateway(r);
    await new Promise((ok) => server.close(ok));
  });

  it('a mebibyte of YAML that changes at every read does not stall another tenant', async () => {
    const victim = await Victim.create(r);
    await waitFor('the first read', async () => (reads > 0 ? true : undefined));
    await victim.baseline();
    hostile = true;
    const from = reads;
    const { report } = await victim.during('1 MiB static pod manifests re-read every second', () =>
      waitFor('five reads of the hostile manifest', async () => (reads >= from + 5 ? true : undefined), 60_000));
    hostile = false;
    expect(report.failures).toEqual([]);
  }, 120_000);
});
