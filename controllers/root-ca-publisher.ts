// Controllers: the root CA publisher (kubernetes pkg/controller/certificates/rootcacertpublisher/publisher.go):
// every active namespace holds the ConfigMap kube-root-ca.crt with the cluster's CA bundle as `ca.crt`, and gets it
// back when it is deleted. The ConfigMaps are cached as metadata only (as the garbage collector caches them: any
// tenant's ConfigMap can be large), so an edited `ca.crt` or description is not put back until the ConfigMap is
// deleted; kube compares both on every change.

import type { KubeObject } from '../client/types';
import { isAlreadyExists, RESOURCES, type Api } from './api-client';
import type { Clock } from './clock';
import type { SharedInformer } from './informers';
import { logSyncError, runWorker, WorkQueue } from './workqueue';

export const COMPONENT = 'root-ca-cert-publisher';
export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
export const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
export const DESCRIPTION = 'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal '
  + 'service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

/** The ConfigMap as the publisher writes it: the bundle as a PEM file holds it, ending with a newline. */
export function rootCAConfigMap(rootCA: string): KubeObject {
  if (rootCA && !rootCA.endsWith('\n')) rootCA += '\n';
  return {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: { name: ROOT_CA_CONFIGMAP, annotations: { [DESCRIPTION_ANNOTATION]: DESCRIPTION } },
    data: { 'ca.crt': rootCA },
  };
}

export class RootCAPublisher {
  readonly queue: WorkQueue;

  constructor(private readonly api: Api, private readonly namespaces: SharedInformer, private readonly configMaps: SharedInformer,
    private readonly rootCA: string, clock: Clock) {
    this.queue = new WorkQueue(clock);
    const enqueueNs = (ns: KubeObject) => this.queue.add(ns.metadata.name!);
    namespaces.addHandlers({ add: enqueueNs, update: enqueueNs });
    const enqueueCm = (cm: KubeObject) => {
      if (cm.metadata.name === ROOT_CA_CONFIGMAP) this.queue.add(cm.metadata.namespace!);
    };
    configMaps.addHandlers({ delete: enqueueCm });
  }

  run(workers = 1): Promise<void>[] {
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), { onError: logSyncError(COMPONENT) }));
  }

  async sync(namespace: string): Promise<void> {
    const ns = this.namespaces.get(namespace);
    if (!ns || ns.metadata.deletionTimestamp || (ns.status as { phase?: string } | undefined)?.phase !== 'Active') return;
    const cm = this.configMaps.get(`${namespace}/${ROOT_CA_CONFIGMAP}`);
    try {
      if (!cm) await this.api.create(RESOURCES.configmaps, namespace, rootCAConfigMap(this.rootCA));
    } catch (e) {
      // AlreadyExists: the informer lags; 403/404: the namespace is terminating or gone.
      const code = (e as { code?: number }).code;
      if (isAlreadyExists(e) || code === 403 || code === 404) return;
      throw e;
    }
  }
}
