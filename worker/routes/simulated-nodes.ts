// Front door: stopping and starting a simulated node (controllers/kubelet/simulated-nodes.ts).
// POST /_edgeplane/nodes/<name>/stop sets the Node's edgeplane.dev/simulate=stopped annotation, which makes
// its simulated kubelet go quiet (no Lease renewals, pods frozen) as a lost machine would; .../start removes
// it. A non-resource URL, so RBAC decides who may (verb "post" on /_edgeplane/nodes/*: cluster-admin by
// default). Answers the Node as patched.

import { Hono } from 'hono';
import type { AppEnv } from '../env';
import { lookupGroupResource } from '../../core/registry';
import { SIMULATE_ANNOTATION } from '../../controllers/kubelet/node-status';
import { storeFor } from '../stores';
import { reply } from '../handlers/reply';

export const simulatedNodes = new Hono<AppEnv>();

simulatedNodes.post('/_edgeplane/nodes/:name/:action{stop|start}', async (c) => {
  const type = lookupGroupResource('core/nodes')!;
  const value = c.req.param('action') === 'stop' ? 'stopped' : null;
  const result = await storeFor(c.env, type).write('core/nodes', {
    verb: 'patch', namespace: '', name: c.req.param('name'), subresource: '', patchType: 'application/merge-patch+json',
    body: JSON.stringify({ metadata: { annotations: { [SIMULATE_ANNOTATION]: value } } }), fieldManager: 'edgeplane-node-simulation',
  }, {});
  return reply(result);
});
