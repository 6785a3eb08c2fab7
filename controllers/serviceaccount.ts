// Controllers: the ServiceAccount controller (kubernetes pkg/controller/serviceaccount/serviceaccounts_controller.go):
// every active namespace has a ServiceAccount named `default`; deleting it brings it back.

import type { KubeObject } from '../client/types';
import { isAlreadyExists, RESOURCES, type Api } from './api-client';
import type { Clock } from './clock';
import type { SharedInformer } from './informers';
import { logSyncError, runWorker, WorkQueue } from './workqueue';

export const COMPONENT = 'service-account-controller';
export const MANAGED_ACCOUNTS = ['default'];

export class ServiceAccountController {
  readonly queue: WorkQueue;

  constructor(private readonly api: Api, private readonly namespaces: SharedInformer, private readonly accounts: SharedInformer, clock: Clock) {
    this.queue = new WorkQueue(clock);
    const enqueueNs = (ns: KubeObject) => this.queue.add(ns.metadata.name!);
    namespaces.addHandlers({ add: enqueueNs, update: enqueueNs });
    accounts.addHandlers({
      delete: (sa) => {
        if (MANAGED_ACCOUNTS.includes(sa.metadata.name!)) this.queue.add(sa.metadata.namespace!);
      },
    });
  }

  run(workers = 1): Promise<void>[] {
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), {
      onError: logSyncError(COMPONENT),
    }));
  }

  async sync(namespace: string): Promise<void> {
    const ns = this.namespaces.get(namespace);
    if (!ns || ns.metadata.deletionTimestamp || (ns.status as { phase?: string } | undefined)?.phase !== 'Active') return;
    for (const name of MANAGED_ACCOUNTS) {
      if (this.accounts.get(`${namespace}/${name}`)) continue;
      try {
        await this.api.create(RESOURCES.serviceaccounts, namespace, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } });
      } catch (e) {
        // AlreadyExists: the informer lags; 403/404 when the namespace is terminating or gone.
        if (isAlreadyExists(e) || (e as { code?: number }).code === 403 || (e as { code?: number }).code === 404) continue;
        throw e;
      }
    }
  }
}
