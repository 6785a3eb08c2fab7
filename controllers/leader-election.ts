// Controllers: Lease-based leader election (client-go tools/leaderelection with the Lease lock):
// leaseDuration 15 s, renewDeadline 10 s, retryPeriod 2 s (component-base defaults). Mutual exclusion is
// the optimistic concurrency of the Lease PUT (409 on a stale resourceVersion); whether another holder's
// lease is still valid is judged by this process's clock from when it last saw the record change
// (observedTime), never from the server's renewTime.

import type { KubeObject } from '../client/types';
import { isConflict, isNotFound, RESOURCES, type Api } from './api-client';
import type { Clock } from './clock';

export interface LeaderElectionConfig {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
}

export const KCM_LEASE = { namespace: 'kube-system', name: 'kube-controller-manager', leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

/** metav1.MicroTime: RFC 3339 with microseconds. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export class LeaderElector {
  private observed: { record: string; at: number } | undefined;
  private lastRenew = 0;
  private leading = false;

  constructor(private readonly api: Api, private readonly clock: Clock, readonly config: LeaderElectionConfig) {}

  isLeader(): boolean {
    return this.leading && this.clock.now() - this.lastRenew < this.config.renewDeadlineMs;
  }

  /**
   * One tryAcquireOrRenew (leaderelection.go): true when this identity holds the lease afterwards.
   * Leadership is lost when renewals fail for renewDeadline.
   */
  async tryAcquireOrRenew(): Promise<boolean> {
    const c = this.config;
    const now = this.clock.now();
    const desired: LeaseSpec = {
      holderIdentity: c.identity, leaseDurationSeconds: Math.round(c.leaseDurationMs / 1000), acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0,
    };
    try {
      let lease: KubeObject;
      try {
        lease = await this.api.get(RESOURCES.leases, c.namespace, c.name);
      } catch (e) {
        if (!isNotFound(e)) throw e;
        await this.api.create(RESOURCES.leases, c.namespace, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: c.name, namespace: c.namespace }, spec: desired });
        return this.succeeded(now);
      }
      const spec = (lease.spec ?? {}) as LeaseSpec;
      const record = JSON.stringify(spec);
      if (this.observed?.record !== record) this.observed = { record, at: now };
      const held = !!spec.holderIdentity && spec.holderIdentity !== c.identity;
      if (held && this.observed.at + (spec.leaseDurationSeconds ?? 0) * 1000 > now) return this.failed(now);
      if (spec.holderIdentity === c.identity) {
        desired.acquireTime = spec.acquireTime;
        desired.leaseTransitions = spec.leaseTransitions ?? 0;
      } else {
        desired.leaseTransitions = (spec.leaseTransitions ?? 0) + 1;
      }
      const updated = await this.api.update(RESOURCES.leases, { ...lease, spec: desired });
      this.observed = { record: JSON.stringify(updated.spec ?? {}), at: now };
      return this.succeeded(now);
    } catch (e) {
      if (!isConflict(e)) console.error(`leader election: ${(e as Error).message}`);
      return this.failed(now);
    }
  }

  private succeeded(now: number): boolean {
    this.leading = true;
    this.lastRenew = now;
    return true;
  }

  private failed(now: number): boolean {
    if (now - this.lastRenew >= this.config.renewDeadlineMs) this.leading = false;
    return this.isLeader();
  }
}
