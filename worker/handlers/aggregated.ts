// Front door: what kube-aggregator's proxy answers for a group version an APIService hands to a Service
// (apiserver handler_proxy.go): while the APIService is not Available, 503 with Go's http.Error text
// "service unavailable". edgeplane proxies to no Service (the simulated pods run nothing), so a service-backed
// APIService is never Available except metrics.k8s.io/v1beta1, whose built-in answers stand in for its pods.
// One read of the APIService per call, only on the paths that need it (unknown groups, metrics.k8s.io). Discovery
// reads the APIService list at most once a second per isolate (discoveryOverlayFor).

import type { Context } from 'hono';
import { groupResource, lookupGroupResource, RESOURCE_TYPES } from '../../core/registry';
import { apiServiceName, discoveryOverlay, EMPTY_OVERLAY, isApiServiceAvailable, type DiscoveryOverlay } from '../../core/apiservices';
import { readObject, storeFor } from '../stores';
import type { AppEnv } from '../env';

const APISERVICES = lookupGroupResource('apiregistration.k8s.io/apiservices')!;

/** The 503 when `<version>.<group>` is an APIService with a service that is not Available; undefined otherwise. */
export async function unavailableAggregated(c: Context<AppEnv>, group: string, version: string): Promise<Response | undefined> {
  if (!group || !version) return undefined;
  const got = await readObject<{ spec?: { service?: unknown } }>(c.env, APISERVICES, '', apiServiceName(group, version));
  if (!got.ok || !got.value?.spec?.service || isApiServiceAvailable(got.value)) return undefined;
  return serviceUnavailable();
}

function serviceUnavailable(): Response {
  return new Response('service unavailable\n', {
    status: 503, headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' },
  });
}

const BUILT_IN = new Set(RESOURCE_TYPES.map((t) => `${t.group}/${t.version}`));
// One isolate-wide answer, reused for a second: discovery is read on every kubectl invocation, APIServices change
// rarely, and the availability loop itself takes seconds to notice a change.
const OVERLAY_TTL_MS = 1000;
let cached: { at: number; overlay: DiscoveryOverlay } | undefined;

/** The APIServices' effect on discovery (core/apiservices.ts discoveryOverlay); without it when they cannot be read. */
export function discoveryOverlayFor(c: Context<AppEnv>): Promise<DiscoveryOverlay> {
  const now = Date.now();
  if (cached && now - cached.at < OVERLAY_TTL_MS) return Promise.resolve(cached.overlay);
  // Concurrent requests at expiry share one read.
  return (pending ??= readOverlay(c, now).finally(() => {
    pending = undefined;
  }));
}

let pending: Promise<DiscoveryOverlay> | undefined;

async function readOverlay(c: Context<AppEnv>, now: number): Promise<DiscoveryOverlay> {
  try {
    const res = await storeFor(c.env, APISERVICES).list(groupResource(APISERVICES), { namespace: '', query: '', format: { as: 'List' } });
    if (!res.ok) return cached?.overlay ?? EMPTY_OVERLAY;
    const body = (await res.json()) as { items?: unknown[] };
    const overlay = discoveryOverlay(Array.isArray(body.items) ? body.items : [], (g, v) => BUILT_IN.has(`${g}/${v}`));
    cached = { at: now, overlay };
    return overlay;
  } catch (e) {
    console.error(`discovery: APIServices unreadable: ${(e as Error).message}`);
    return cached?.overlay ?? EMPTY_OVERLAY;
  }
}

/** The 503 for a built-in group version whose service-backed APIService is unavailable (metrics.k8s.io), from the cached overlay. */
export async function staleBuiltIn(c: Context<AppEnv>, group: string, version: string): Promise<Response | undefined> {
  if (!group || !(await discoveryOverlayFor(c)).stale.has(`${group}/${version}`)) return undefined;
  return serviceUnavailable();
}
