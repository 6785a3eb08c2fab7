// Controllers: a cloud-controller-manager stand-in for Services of type LoadBalancer (the service controller of
// k8s.io/cloud-provider, run as service-controller): each such Service without spec.loadBalancerClass gets an
// address from a simulated pool (the LOAD_BALANCER_POOL CIDR) in status.loadBalancer.ingress — the one in
// spec.loadBalancerIP when it is free and in the pool — with kube's EnsuringLoadBalancer/EnsuredLoadBalancer
// events; a Service that stops being one (or is deleted) gives its address back. Addresses in use are read
// from the Services' status, so a restart keeps them; the lowest free address is found among the first
// (in use + 1) of the pool, so allocation is linear in the Services, never in the pool's size.

import type { KubeObject } from '../client/types';
import { objectKey } from '../client/cache';
import { isConflict, isNotFound, type Api } from './api-client';
import type { Clock } from './clock';
import type { EventRecorder } from './events';
import type { SharedInformer } from './informers';
import { logSyncError, runWorker, WorkQueue } from './workqueue';

export const COMPONENT = 'service-controller';
const SERVICES = { group: '', version: 'v1', resource: 'services', namespaced: true } as const;

export interface Pool { base: number; size: number } // IPv4 addresses base .. base + size − 1 (network and broadcast left out)

/** An IPv4 CIDR as a pool of host addresses; undefined when it does not parse. */
export function parsePool(cidr: string): Pool | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(cidr.trim());
  if (!m) return undefined;
  const octets = m.slice(1, 5).map(Number);
  const bits = Number(m[5]);
  if (octets.some((o) => o > 255) || bits > 32 || bits < 1) return undefined;
  const ip = octets.reduce((n, o) => n * 256 + o, 0);
  const span = 2 ** (32 - bits);
  const network = Math.floor(ip / span) * span;
  return span <= 2 ? { base: network, size: span } : { base: network + 1, size: span - 2 };
}

export const formatIP = (n: number): string => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
function parseIP(s: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return undefined;
  const o = m.slice(1).map(Number);
  return o.some((x) => x > 255) ? undefined : o.reduce((n, x) => n * 256 + x, 0);
}

interface ServiceSpec { type?: string; loadBalancerClass?: string; loadBalancerIP?: string }
const specOf = (s: KubeObject): ServiceSpec => (s.spec as ServiceSpec | undefined) ?? {};
const ingressOf = (s: KubeObject): { ip?: string }[] => ((s.status as { loadBalancer?: { ingress?: { ip?: string }[] } } | undefined)?.loadBalancer?.ingress) ?? [];
/** wantsLoadBalancer: type LoadBalancer with no class (a class names another implementation). */
export const wantsLoadBalancer = (s: KubeObject): boolean => specOf(s).type === 'LoadBalancer' && !specOf(s).loadBalancerClass && !s.metadata.deletionTimestamp;

/** The address for `svc`: its current one, the requested one when free, else the lowest free one. */
export function chooseAddress(svc: KubeObject, inUse: Set<number>, pool: Pool): { ip: string } | { error: string } {
  const inPool = (n: number) => n >= pool.base && n < pool.base + pool.size;
  const current = ingressOf(svc).map((i) => parseIP(i.ip ?? '')).find((n) => n !== undefined && inPool(n));
  if (current !== undefined && !specOf(svc).loadBalancerIP) return { ip: formatIP(current) };
  const requested = specOf(svc).loadBalancerIP;
  if (requested) {
    const n = parseIP(requested);
    if (n === undefined || !inPool(n)) return { error: `requested IP ${requested} is not in the load balancer pool` };
    if (inUse.has(n) && n !== current) return { error: `requested IP ${requested} is already in use` };
    return { ip: requested };
  }
  const limit = Math.min(pool.size, inUse.size + 1);
  for (let i = 0; i < limit; i++) if (!inUse.has(pool.base + i)) return { ip: formatIP(pool.base + i) };
  return { error: 'no addresses left in the load balancer pool' };
}

export class ServiceLoadBalancerController {
  readonly queue: WorkQueue;
  private readonly waiting = new Set<string>(); // Services refused an address (at most one entry per Service)

  constructor(private readonly api: Api, private readonly services: SharedInformer, private readonly pool: Pool | undefined, private readonly recorder: EventRecorder, clock: Clock) {
    this.queue = new WorkQueue(clock);
    const enqueue = (s: KubeObject) => { if (wantsLoadBalancer(s) || ingressOf(s).length) this.queue.add(objectKey(s)); };
    // A Service going away frees its address for the ones waiting.
    services.addHandlers({ add: enqueue, update: enqueue, delete: (s) => { if (ingressOf(s).length) this.wakeWaiting(); } });
  }

  private wakeWaiting(): void {
    for (const key of this.waiting) this.queue.add(key);
    this.waiting.clear();
  }

  run(workers = 1): Promise<void>[] {
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), { onError: logSyncError(COMPONENT) }));
  }

  private inUse(except: string): Set<number> {
    const used = new Set<number>();
    for (const s of this.services.list()) {
      if (objectKey(s) === except || !wantsLoadBalancer(s)) continue;
      for (const i of ingressOf(s)) {
        const n = parseIP(i.ip ?? '');
        if (n !== undefined) used.add(n);
      }
    }
    return used;
  }

  private async writeStatus(svc: KubeObject, loadBalancer: Record<string, unknown>): Promise<void> {
    try {
      await this.api.update(SERVICES, { ...svc, status: { ...(svc.status ?? {}), loadBalancer } }, 'status');
    } catch (e) {
      if (!isNotFound(e) && !isConflict(e)) throw e;
    }
  }

  async sync(key: string): Promise<void> {
    const svc = this.services.get(key);
    if (!svc) return void this.waiting.delete(key);
    if (!wantsLoadBalancer(svc)) {
      this.waiting.delete(key);
      if (!ingressOf(svc).length || svc.metadata.deletionTimestamp) return;
      // No longer a load balancer: its address goes back to the pool.
      this.recorder.event(svc, 'Normal', 'DeletingLoadBalancer', 'Deleting load balancer');
      await this.writeStatus(svc, {});
      this.recorder.event(svc, 'Normal', 'DeletedLoadBalancer', 'Deleted load balancer');
      this.wakeWaiting();
      return;
    }
    if (!this.pool) return;
    const chosen = chooseAddress(svc, this.inUse(key), this.pool);
    const current = ingressOf(svc);
    if ('ip' in chosen && current.length === 1 && current[0]!.ip === chosen.ip) return;
    this.recorder.event(svc, 'Normal', 'EnsuringLoadBalancer', 'Ensuring load balancer');
    if ('error' in chosen) {
      this.recorder.event(svc, 'Warning', 'SyncLoadBalancerFailed', `Error syncing load balancer: failed to ensure load balancer: ${chosen.error}`);
      this.waiting.add(key); // tried again when an address is given back
      return;
    }
    this.waiting.delete(key);
    await this.writeStatus(svc, { ingress: [{ ip: chosen.ip, ipMode: 'VIP' }] });
    this.recorder.event(svc, 'Normal', 'EnsuredLoadBalancer', 'Ensured load balancer');
  }
}
