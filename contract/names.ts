// Contract: what each Durable Object is called, and its stub by that name — the one place objects are named.
// A store per resource type (its group/resource, e.g. "apps/deployments"); replicas per type, location and
// index ("core/pods@enam#0"); authorizer shards ("authz:0"); one controller manager.

import type { Bindings } from './bindings';

export const AUTHORIZER_PREFIX = 'authz:';
export const CONTROLLER_MANAGER_NAME = 'kube-controller-manager';

// `<group/resource>@<location>#<index>`; a location holds neither '@' nor '#'.
const REPLICA_NAME = /^(.+)@([^#@]+)#(\d+)$/;

export function replicaName(groupResource: string, location: string, index: number): string {
  return `${groupResource}@${location}#${index}`;
}

/** A replica's name taken apart; undefined for any other name (an authorizer shard's, say). */
export function parseReplicaName(name: string): { groupResource: string; location: string; index: number } | undefined {
  const m = REPLICA_NAME.exec(name);
  return m ? { groupResource: m[1], location: m[2], index: Number(m[3]) } : undefined;
}

export function authorizerName(shard: number): string {
  return `${AUTHORIZER_PREFIX}${shard}`;
}

/** Subscribers of a store are replicas or authorizer shards; this tells them apart. */
export function isAuthorizerName(name: string): boolean {
  return name.startsWith(AUTHORIZER_PREFIX);
}

export function storeStub(env: Pick<Bindings, 'STORE'>, groupResource: string) {
  return env.STORE.get(env.STORE.idFromName(groupResource));
}

export function replicaStub(env: Pick<Bindings, 'REPLICA'>, name: string, locationHint?: string) {
  const id = env.REPLICA.idFromName(name);
  return locationHint ? env.REPLICA.get(id, { locationHint: locationHint as DurableObjectLocationHint }) : env.REPLICA.get(id);
}

export function authorizerStub(env: Pick<Bindings, 'AUTHORIZER'>, name: string) {
  return env.AUTHORIZER.get(env.AUTHORIZER.idFromName(name));
}

/** A store's subscriber by name: an authorizer shard or a replica (undefined where the binding is missing). */
export function subscriberStub(env: Partial<Pick<Bindings, 'REPLICA' | 'AUTHORIZER'>>, name: string) {
  if (isAuthorizerName(name)) return env.AUTHORIZER && authorizerStub({ AUTHORIZER: env.AUTHORIZER }, name);
  return env.REPLICA && replicaStub({ REPLICA: env.REPLICA }, name);
}

/** The controller manager singleton; undefined where it is not bound. */
export function controllerManagerStub(env: Pick<Bindings, 'CONTROLLER_MANAGER'>) {
  const ns = env.CONTROLLER_MANAGER;
  return ns?.get(ns.idFromName(CONTROLLER_MANAGER_NAME));
}
