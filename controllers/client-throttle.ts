// Controllers: client-go's client-side rate limit (rest.Config QPS and Burst, a token bucket every request of
// the client waits on, in order). kube-controller-manager gives each controller's client --kube-api-qps 20 and
// --kube-api-burst 30. It is what keeps one tenant's 1,500-replica ReplicaSet from turning the loops into a
// flood of writes: its pods are created at most 20 a second, so the scheduler, the kubelets and everyone
// else's requests keep finding room in the API, and another tenant's ReplicaSet waits for a few tokens at
// most, not behind the whole backlog.

import type { KubeObject } from '../client/types';
import type { Api, DeleteOptions, ResourceRef } from './api-client';
import type { Clock } from './clock';
import { TokenBucket } from './workqueue';

export const CONTROLLER_CLIENT_QPS = 20; // --kube-api-qps
export const CONTROLLER_CLIENT_BURST = 30; // --kube-api-burst

export interface ClientRateLimit {
  qps: number;
  burst: number;
}

export const CONTROLLER_CLIENT_RATE_LIMIT: ClientRateLimit = { qps: CONTROLLER_CLIENT_QPS, burst: CONTROLLER_CLIENT_BURST };

/** An Api whose requests each take a token first (golang.org/x/time/rate Wait: reserve now, sleep until due). */
export class ThrottledApi implements Api {
  private readonly bucket: TokenBucket;

  constructor(private readonly inner: Api, private readonly clock: Clock, limit: ClientRateLimit = CONTROLLER_CLIENT_RATE_LIMIT) {
    this.bucket = new TokenBucket(clock, limit.qps, limit.burst);
  }

  async get(r: ResourceRef, namespace: string, name: string): Promise<KubeObject> {
    await this.wait();
    return this.inner.get(r, namespace, name);
  }

  async create(r: ResourceRef, namespace: string, obj: KubeObject): Promise<KubeObject> {
    await this.wait();
    return this.inner.create(r, namespace, obj);
  }

  async update(r: ResourceRef, obj: KubeObject, subresource?: '' | 'status'): Promise<KubeObject> {
    await this.wait();
    return this.inner.update(r, obj, subresource);
  }

  async patch(r: ResourceRef, namespace: string, name: string, patchType: 'merge' | 'strategic', body: unknown, subresource?: '' | 'status'): Promise<KubeObject> {
    await this.wait();
    return this.inner.patch(r, namespace, name, patchType, body, subresource);
  }

  async delete(r: ResourceRef, namespace: string, name: string, options?: DeleteOptions): Promise<void> {
    await this.wait();
    return this.inner.delete(r, namespace, name, options);
  }

  /** Reserves the next token; resolves when it is due. Reservations are served in the order they were made. */
  private wait(): Promise<void> {
    const ms = this.bucket.reserve();
    return ms > 0 ? new Promise((resolve) => this.clock.setTimeout(resolve, ms)) : Promise.resolve();
  }
}

/** The controller's client, throttled unless `limit` is false (tests that drive big syncs by hand). */
export function controllerClient(api: Api, clock: Clock, limit: ClientRateLimit | false | undefined): Api {
  return limit === false ? api : new ThrottledApi(api, clock, limit ?? CONTROLLER_CLIENT_RATE_LIMIT);
}
