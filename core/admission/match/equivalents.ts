// Core: a resource's equivalent group/versions for matchPolicy: Equivalent (kube's EquivalentResourceMapper,
// apiserver/pkg/endpoints/installer.go registers every version and group that serves the same storage): here the
// types whose store is the same — autoscaling/v1 and v2 HorizontalPodAutoscalers, core/v1 and events.k8s.io/v1
// Events, and each served version of a CustomResourceDefinition.

import { allResourceTypes, groupResource, type ResourceType } from '../../registry';

const storeOf = (t: ResourceType) => t.viewOf ?? groupResource(t);

// Grouped once per type list (the list is replaced whenever CRDs change), so a lookup is O(1).
let indexed: readonly ResourceType[] | undefined;
let byStore = new Map<string, ResourceType[]>();

/** Every served type over the same storage as `t`, `t` itself included, in registry order. */
export function equivalentTypes(t: ResourceType, types: readonly ResourceType[] = allResourceTypes()): ResourceType[] {
  if (types !== indexed) {
    byStore = new Map();
    for (const x of types) {
      const k = storeOf(x);
      const list = byStore.get(k);
      if (list) list.push(x);
      else byStore.set(k, [x]);
    }
    indexed = types;
  }
  return byStore.get(storeOf(t)) ?? [t];
}
