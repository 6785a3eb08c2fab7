// Every layer: the answer to a create in a namespace that is being deleted (apiserver NamespaceLifecycle
// admission: Forbidden with a NamespaceTerminating cause), from the front door's admission check or from
// a store's own fence (durable-objects/namespace-fence.ts).

import { forbidden, type Status, type StatusTarget } from '../status';

export function namespaceTerminating(type: StatusTarget, name: string, namespace: string): Status {
  return forbidden(type, name, `unable to create new content in namespace ${namespace} because it is being terminated`, [
    { reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' },
  ]);
}
