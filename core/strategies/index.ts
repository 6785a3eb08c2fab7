// Core: the write strategy of every type (./strategy.ts), looked up by the registry's group/resource: the built-ins
// with something of their own, every CRD-defined type, and the default for the rest.

import { groupResource, type ResourceType } from '../registry';
import { CRD_GROUP_RESOURCE } from '../crd/crd-object';
import type { WriteStrategy } from './strategy';
import { DEFAULT_STRATEGY } from './default';
import { POD_STRATEGY } from './pod';
import { SERVICE_STRATEGY } from './service';
import { NAMESPACE_STRATEGY } from './namespace';
import { EVENT_STRATEGY } from './event';
import { CRD_STRATEGY } from './crd';
import { customStrategy } from './custom';
import { PRIORITY_CLASS_STRATEGY } from './priority-class';
import { CSR_STRATEGY } from './subresource-updates';
import { ADMISSION_POLICY_STRATEGY } from './admission-policy';

const BUILT_IN: ReadonlyMap<string, WriteStrategy> = new Map([
  ['core/pods', POD_STRATEGY],
  ['certificates.k8s.io/certificatesigningrequests', CSR_STRATEGY],
  ['scheduling.k8s.io/priorityclasses', PRIORITY_CLASS_STRATEGY],
  ['core/services', SERVICE_STRATEGY],
  ['core/namespaces', NAMESPACE_STRATEGY],
  ['core/events', EVENT_STRATEGY],
  [CRD_GROUP_RESOURCE, CRD_STRATEGY],
  ['admissionregistration.k8s.io/validatingadmissionpolicies', ADMISSION_POLICY_STRATEGY],
]);

export function strategyFor(type: ResourceType): WriteStrategy {
  if (type.custom) return customStrategy(type);
  return BUILT_IN.get(groupResource(type)) ?? DEFAULT_STRATEGY;
}
