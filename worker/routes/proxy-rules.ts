// Front door: GET /_edgeplane/nodes/<node>/proxy-rules — the rule table the simulated kube-proxy of a
// node keeps (controllers/kube-proxy.ts), read from the controller manager Durable Object. Authorized as
// a non-resource URL like /metrics (cluster-admin reads it; others need a nonResourceURLs rule).

import { Hono } from 'hono';
import type { AppEnv } from '../env';
import { notFound, statusResponse } from '../../core/status';
import { controllerManagerStub } from '../../contract/names';

export const proxyRules = new Hono<AppEnv>();

proxyRules.get('/_edgeplane/nodes/:node/proxy-rules', async (c) => {
  const node = c.req.param('node');
  const manager = controllerManagerStub(c.env);
  if (!c.get('settings').controllers || !manager) return statusResponse(notFound({ group: '', resource: 'nodes' }, node));
  const rules = await manager.proxyRules(node);
  if (!rules) return statusResponse(notFound({ group: '', resource: 'nodes' }, node));
  return c.json(rules);
});
