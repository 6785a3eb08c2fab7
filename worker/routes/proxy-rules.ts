// Front door: GET /_edgeplane/nodes/<node>/proxy-rules — the rule table the simulated kube-proxy of a
// node keeps (controllers/kube-proxy.ts), read from the controller manager Durable Object. Authorized as
// a non-resource URL like /metrics (cluster-admin reads it; others need a nonResourceURLs rule).

import { Hono } from 'hono';
import type { AppEnv } from '../env';
import { notFound, statusResponse } from '../../core/status';
import { CONTROLLER_MANAGER_NAME } from '../../durable-objects/controller-manager';

export const proxyRules = new Hono<AppEnv>();

proxyRules.get('/_edgeplane/nodes/:node/proxy-rules', async (c) => {
  const node = c.req.param('node');
  const ns = c.env.CONTROLLER_MANAGER;
  if (!c.get('settings').controllers || !ns) return statusResponse(notFound({ group: '', resource: 'nodes' }, node));
  const rules = await ns.get(ns.idFromName(CONTROLLER_MANAGER_NAME)).proxyRules(node);
  if (!rules) return statusResponse(notFound({ group: '', resource: 'nodes' }, node));
  return c.json(rules);
});
