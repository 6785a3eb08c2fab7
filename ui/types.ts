// Console: the resource types the console watches, as data: a tab each, with the columns its table shows.

import type { KubeObject } from '../client/index';

export interface Column {
  title: string;
  value: (o: KubeObject) => string;
}

export interface WatchedType {
  id: string; // tab and debug-state key
  label: string;
  path: string; // cluster-wide collection
  namespaced: boolean;
  columns: Column[];
}

const spec = (o: KubeObject) => (o.spec ?? {}) as Record<string, any>;
const status = (o: KubeObject) => (o.status ?? {}) as Record<string, any>;

export const WATCHED: WatchedType[] = [
  { id: 'namespaces', label: 'Namespaces', path: '/api/v1/namespaces', namespaced: false,
    columns: [{ title: 'Status', value: (o) => String(status(o).phase ?? '') }] },
  { id: 'pods', label: 'Pods', path: '/api/v1/pods', namespaced: true,
    columns: [
      { title: 'Phase', value: (o) => String(status(o).phase ?? '') },
      { title: 'Node', value: (o) => String(spec(o).nodeName ?? '') },
    ] },
  { id: 'deployments', label: 'Deployments', path: '/apis/apps/v1/deployments', namespaced: true,
    columns: [{ title: 'Ready', value: (o) => `${status(o).readyReplicas ?? 0}/${spec(o).replicas ?? 0}` }] },
  { id: 'configmaps', label: 'ConfigMaps', path: '/api/v1/configmaps', namespaced: true,
    columns: [{ title: 'Data', value: (o) => String(Object.keys((o.data ?? {}) as object).length) }] },
];
