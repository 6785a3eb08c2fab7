// Console panel 4: the replica topology. Per type, the canonical store and each replica subscribed to it:
// revision, lag behind the store in revisions (from /_edgeplane/topology, polled at 1 Hz) and in milliseconds
// (measured black-box by the lag probe), watchers, deliveries per second, slow-watcher closes and 410s.

import { el, schedule } from '../dom';
import { api, type Session } from '../session';
import type { LagProbe } from './lag-probe';

export interface ReplicaInfo {
  name: string;
  location: string;
  index: number;
  revision: number;
  storeRevision: number;
  lag: number;
  watchers: number;
  deliveries: number;
  eventsReceived: number;
  slowClosed: number;
  expired: number;
}

export interface TypeTopology {
  resource: string;
  store: { revision: number; compacted: number; objects: number; watchers: number; deliveries: number; slowClosed: number; expired: number };
  replicas: ReplicaInfo[];
}

interface TopologyReply {
  time: number;
  types: TypeTopology[];
}

const RESOURCE_OF: Record<string, string> = {
  namespaces: 'core/namespaces', pods: 'core/pods', deployments: 'apps/deployments', configmaps: 'core/configmaps',
};

export function lagClass(lag: number): string {
  return lag <= 1 ? 'lag-ok' : lag <= 100 ? 'lag-warn' : 'lag-bad';
}

export class Topology {
  readonly root = el('section', { class: 'panel topology', 'aria-label': 'Replica topology' });
  private readonly body = el('div', { class: 'topology-body' });
  latest: TopologyReply | undefined;
  private previous: TopologyReply | undefined;
  private readonly listeners = new Set<() => void>();
  error: string | undefined;

  constructor(private readonly session: Session, private readonly lagProbe: LagProbe) {
    this.root.append(el('div', { class: 'panel-head' }, el('h2', {}, 'Replica topology')), this.body);
    this.body.append(el('p', { class: 'empty' }, 'Loading topology…'));
    void this.poll();
    setInterval(() => void this.poll(), 1000);
  }

  onUpdate(f: () => void): void {
    this.listeners.add(f);
  }

  storeRevision(typeId: string): number | undefined {
    return this.latest?.types.find((t) => t.resource === RESOURCE_OF[typeId])?.store.revision;
  }

  private async poll(): Promise<void> {
    try {
      const next = await api<TopologyReply>(this.session, '/_edgeplane/topology');
      this.previous = this.latest;
      this.latest = next;
      this.error = undefined;
    } catch (e) {
      this.error = (e as Error).message;
    }
    schedule(this);
    for (const f of this.listeners) f();
  }

  /** Deliveries per second of one replica since the previous poll. */
  private rate(resource: string, replica: ReplicaInfo): number | undefined {
    const before = this.previous?.types.find((t) => t.resource === resource)?.replicas.find((r) => r.name === replica.name);
    if (!before || !this.latest || !this.previous) return undefined;
    const seconds = (this.latest.time - this.previous.time) / 1000;
    return seconds > 0 ? (replica.deliveries - before.deliveries) / seconds : undefined;
  }

  render(): void {
    if (this.error && !this.latest) {
      this.body.replaceChildren(el('p', { class: 'error', role: 'alert' }, `Topology unavailable: ${this.error}`));
      return;
    }
    if (!this.latest) return;
    const shown = this.latest.types.filter((t) => Object.values(RESOURCE_OF).includes(t.resource) || t.replicas.length > 0);
    this.body.replaceChildren(...shown.map((t) => {
      const replicas = t.replicas.map((r) => {
        const lagMs = t.resource === 'core/configmaps' ? this.lagProbe.lagMs(`${r.location}#${r.index}`) : undefined;
        const rate = this.rate(t.resource, r);
        return el('li', { class: `replica ${lagClass(r.lag)}`, 'data-replica': r.name, 'data-watchers': String(r.watchers) },
          el('span', { class: 'edge', 'aria-hidden': 'true' }, '→'), el('b', {}, `${r.location}#${r.index}`),
          ` RV ${r.revision} · lag ${r.lag} rev${lagMs !== undefined ? ` / ${lagMs.toFixed(1)} ms` : ''} · ${r.watchers} watchers`,
          rate !== undefined ? ` · ${rate.toFixed(0)}/s` : '', r.slowClosed ? ` · ${r.slowClosed} slow closed` : '', r.expired ? ` · ${r.expired}×410` : '');
      });
      return el('div', { class: 'type-topology', 'data-resource': t.resource },
        el('div', { class: 'store-node' }, el('b', {}, t.resource), ` store RV ${t.store.revision} · ${t.store.objects} objects · ${t.store.watchers} direct watchers`),
        replicas.length ? el('ul', { class: 'replicas' }, ...replicas) : el('p', { class: 'muted' }, 'no replica subscribed (none has watchers)'));
    }));
  }
}
