// Front door: what kube-aggregator's proxy answers for a group version an APIService hands to a Service
// (apiserver handler_proxy.go): while the APIService is not Available, 503 with Go's http.Error text
// "service unavailable". edgeplane proxies to no Service (the simulated pods run nothing), so a service-backed
// APIService is never Available except metrics.k8s.io/v1beta1, whose built-in answers stand in for its pods.
// One read of the APIService per call, only on the paths that need it (unknown groups, metrics.k8s.io).

import type { Context } from 'hono';
import { lookupGroupResource } from '../../core/registry';
import { apiServiceName, isApiServiceAvailable } from '../../core/apiservices';
import { readObject } from '../stores';
import type { AppEnv } from '../env';

const APISERVICES = lookupGroupResource('apiregistration.k8s.io/apiservices')!;

/** The 503 when `<version>.<group>` is an APIService with a service that is not Available; undefined otherwise. */
export async function unavailableAggregated(c: Context<AppEnv>, group: string, version: string): Promise<Response | undefined> {
  if (!group || !version) return undefined;
  const got = await readObject<{ spec?: { service?: unknown } }>(c.env, APISERVICES, '', apiServiceName(group, version));
  if (!got.ok || !got.value?.spec?.service || isApiServiceAvailable(got.value)) return undefined;
  return new Response('service unavailable\n', {
    status: 503, headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' },
  });
}
