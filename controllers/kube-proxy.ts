// Controllers: a kube-proxy stand-in per simulated node. kube-proxy runs on every node with its own
// informers (Services, EndpointSlices) as user system:kube-proxy, bound to the system:node-proxier
// ClusterRole by kube's bootstrap policy. Here the followers of all nodes share one pair of informers,
// opened with that identity (so RBAC applies as to kube-proxy), inside the controller manager Durable
// Object; each node's rule table (controllers/proxy-rules.ts) is recomputed from those caches when read
// after a change, as kube-proxy's syncProxyRules runs on a change rather than per event.

import type { KubeObject } from '../client/types';
import type { SharedInformer } from './informers';
import { computeRules, type ServiceRule } from './proxy-rules';

export const KUBE_PROXY_USER = 'system:kube-proxy';

export interface ProxyRules {
  kind: 'ProxyRules';
  node: string;
  syncGeneration: number; // bumps on every Service/EndpointSlice change seen
  resourceVersions: { services?: string; endpointslices?: string };
  rules: ServiceRule[];
}

class NodeProxy {
  private computed: { generation: number; rules: ServiceRule[] } | undefined;
  constructor(readonly node: string) {}

  async rules(generation: number, services: readonly KubeObject[], slices: readonly KubeObject[]): Promise<ServiceRule[]> {
    if (this.computed?.generation === generation) return this.computed.rules;
    const rules = await computeRules(this.node, services, slices);
    this.computed = { generation, rules };
    return rules;
  }
}

export class KubeProxies {
  private generation = 0;
  private readonly proxies = new Map<string, NodeProxy>();
  private lastRV: { services?: string; endpointslices?: string } = {};

  constructor(nodes: readonly string[], private readonly services: SharedInformer, private readonly slices: SharedInformer) {
    for (const n of nodes) this.proxies.set(n, new NodeProxy(n));
    const bump = (which: 'services' | 'endpointslices') => (o: KubeObject) => {
      this.generation++;
      this.lastRV[which] = o.metadata.resourceVersion as string | undefined;
    };
    services.addHandlers({ add: bump('services'), update: bump('services'), delete: bump('services') });
    slices.addHandlers({ add: bump('endpointslices'), update: bump('endpointslices'), delete: bump('endpointslices') });
  }

  nodes(): string[] {
    return [...this.proxies.keys()];
  }

  /** The node's rule table, or undefined for a node without a proxy. */
  async rulesFor(node: string): Promise<ProxyRules | undefined> {
    const p = this.proxies.get(node);
    if (!p) return undefined;
    const generation = this.generation;
    const rules = await p.rules(generation, this.services.list(), this.slices.list());
    return { kind: 'ProxyRules', node, syncGeneration: generation, resourceVersions: { ...this.lastRV }, rules };
  }
}
