// Controllers: a typed-enough REST client over an injected fetch (in the controller manager: the Hono
// app called in-process), one per identity, with kube's paths and a retry on 429 (Retry-After).

import { ApiError, parseStatus, type FetchFn, type KubeObject } from '../client/types';

export interface ResourceRef {
  group: string; // '' for core
  version: string;
  resource: string;
  namespaced: boolean;
}

export const RESOURCES = {
  pods: { group: '', version: 'v1', resource: 'pods', namespaced: true },
  events: { group: '', version: 'v1', resource: 'events', namespaced: true },
  serviceaccounts: { group: '', version: 'v1', resource: 'serviceaccounts', namespaced: true },
  namespaces: { group: '', version: 'v1', resource: 'namespaces', namespaced: false },
  nodes: { group: '', version: 'v1', resource: 'nodes', namespaced: false },
  deployments: { group: 'apps', version: 'v1', resource: 'deployments', namespaced: true },
  replicasets: { group: 'apps', version: 'v1', resource: 'replicasets', namespaced: true },
  leases: { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', namespaced: true },
  replicationcontrollers: { group: '', version: 'v1', resource: 'replicationcontrollers', namespaced: true },
  jobs: { group: 'batch', version: 'v1', resource: 'jobs', namespaced: true },
  statefulsets: { group: 'apps', version: 'v1', resource: 'statefulsets', namespaced: true },
  daemonsets: { group: 'apps', version: 'v1', resource: 'daemonsets', namespaced: true },
  controllerrevisions: { group: 'apps', version: 'v1', resource: 'controllerrevisions', namespaced: true },
  cronjobs: { group: 'batch', version: 'v1', resource: 'cronjobs', namespaced: true },
  persistentvolumeclaims: { group: '', version: 'v1', resource: 'persistentvolumeclaims', namespaced: true },
  persistentvolumes: { group: '', version: 'v1', resource: 'persistentvolumes', namespaced: false },
  storageclasses: { group: 'storage.k8s.io', version: 'v1', resource: 'storageclasses', namespaced: false },
  poddisruptionbudgets: { group: 'policy', version: 'v1', resource: 'poddisruptionbudgets', namespaced: true },
  configmaps: { group: '', version: 'v1', resource: 'configmaps', namespaced: true },
  secrets: { group: '', version: 'v1', resource: 'secrets', namespaced: true },
} as const satisfies Record<string, ResourceRef>;

export function collectionPath(r: ResourceRef, namespace = ''): string {
  const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  return r.namespaced && namespace ? `${base}/namespaces/${namespace}/${r.resource}` : `${base}/${r.resource}`;
}

export function objectPath(r: ResourceRef, namespace: string, name: string, subresource = ''): string {
  return `${collectionPath(r, namespace)}/${encodeURIComponent(name)}${subresource ? `/${subresource}` : ''}`;
}

export interface DeleteOptions {
  propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
}

/** What controllers need from the API; the fakes in tests implement the same interface. */
export interface Api {
  get(r: ResourceRef, namespace: string, name: string): Promise<KubeObject>;
  create(r: ResourceRef, namespace: string, obj: KubeObject): Promise<KubeObject>;
  update(r: ResourceRef, obj: KubeObject, subresource?: '' | 'status' | 'approval'): Promise<KubeObject>;
  patch(r: ResourceRef, namespace: string, name: string, patchType: PatchType, body: unknown, subresource?: '' | 'status', options?: PatchOptions): Promise<KubeObject>;
  delete(r: ResourceRef, namespace: string, name: string, options?: DeleteOptions): Promise<void>;
}

/** 'apply': server-side apply (the body is the applied configuration, in JSON, which is YAML). */
export type PatchType = 'merge' | 'strategic' | 'apply';

/** Query options of a patch: the field manager (required for apply) and force (apply's conflicts taken over). */
export interface PatchOptions {
  fieldManager?: string;
  force?: boolean;
}

const CONTENT_TYPES = { merge: 'application/merge-patch+json', strategic: 'application/strategic-merge-patch+json', apply: 'application/apply-patch+yaml' };
const MAX_THROTTLE_RETRIES = 5;

export interface HttpApiOptions {
  server: string; // e.g. https://edgeplane.internal
  token: () => Promise<string>;
  fetch: FetchFn;
  onWrite?: () => void; // counts writes (for the writes/s figure)
  sleep?: (ms: number) => Promise<void>;
}

export class HttpApi implements Api {
  constructor(private readonly o: HttpApiOptions) {}

  get(r: ResourceRef, namespace: string, name: string): Promise<KubeObject> {
    return this.call('GET', objectPath(r, namespace, name));
  }

  create(r: ResourceRef, namespace: string, obj: KubeObject): Promise<KubeObject> {
    return this.call('POST', collectionPath(r, namespace), JSON.stringify(obj));
  }

  update(r: ResourceRef, obj: KubeObject, subresource: '' | 'status' | 'approval' = ''): Promise<KubeObject> {
    return this.call('PUT', objectPath(r, obj.metadata.namespace ?? '', obj.metadata.name!, subresource), JSON.stringify(obj));
  }

  patch(r: ResourceRef, namespace: string, name: string, patchType: PatchType, body: unknown, subresource: '' | 'status' = '', options: PatchOptions = {}): Promise<KubeObject> {
    const q = new URLSearchParams();
    if (options.fieldManager) q.set('fieldManager', options.fieldManager);
    if (options.force !== undefined) q.set('force', String(options.force));
    const query = q.size ? `?${q}` : '';
    return this.call('PATCH', `${objectPath(r, namespace, name, subresource)}${query}`, JSON.stringify(body), CONTENT_TYPES[patchType]);
  }

  async delete(r: ResourceRef, namespace: string, name: string, options: DeleteOptions = {}): Promise<void> {
    await this.call('DELETE', objectPath(r, namespace, name), JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', ...options }));
  }

  /** Any path (discovery, collections, subresources); JSON in and out. */
  request(method: string, path: string, body?: unknown): Promise<any> {
    return this.call(method, path, body === undefined ? undefined : JSON.stringify(body));
  }

  private async call(method: string, path: string, body?: string, contentType = 'application/json'): Promise<KubeObject> {
    const write = method !== 'GET';
    for (let attempt = 0; ; attempt++) {
      const res = await this.o.fetch(`${this.o.server}${path}`, {
        method,
        headers: { authorization: `Bearer ${await this.o.token()}`, accept: 'application/json', ...(body !== undefined ? { 'content-type': contentType } : {}) },
        body,
      });
      const text = await res.text();
      if (res.status === 429 && attempt < MAX_THROTTLE_RETRIES) {
        const seconds = Number(res.headers.get('retry-after') ?? '1') || 1;
        await (this.o.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))))(seconds * 1000);
        continue;
      }
      if (res.status >= 300) throw new ApiError(res.status, parseStatus(text));
      if (write) this.o.onWrite?.();
      return JSON.parse(text) as KubeObject;
    }
  }
}

export const isNotFound = (e: unknown): boolean => e instanceof ApiError && e.code === 404;
export const isConflict = (e: unknown): boolean => e instanceof ApiError && e.code === 409;
export const isAlreadyExists = (e: unknown): boolean => e instanceof ApiError && e.code === 409 && e.status?.reason === 'AlreadyExists';

/** err.Error() as kube's clients give it: an API Status's own message, else the error's text. */
export function errorText(e: unknown): string {
  if (e instanceof ApiError && e.status?.message) return e.status.message;
  return e instanceof Error ? e.message : String(e);
}
