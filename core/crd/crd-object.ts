// Core: the apiextensions.k8s.io/v1 CustomResourceDefinition object, as the fields this server reads.

import type { KubeObject } from '../object-meta';

export type JSONSchemaProps = Record<string, unknown>;

export interface CrdNames {
  plural?: string;
  singular?: string;
  kind?: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface PrinterColumn {
  name?: string;
  type?: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath?: string;
}

export interface ScaleSpec {
  specReplicasPath?: string;
  statusReplicasPath?: string;
  labelSelectorPath?: string;
}

export interface CrdVersion {
  name?: string;
  served?: boolean;
  storage?: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: { status?: Record<string, never>; scale?: ScaleSpec };
  additionalPrinterColumns?: PrinterColumn[];
  selectableFields?: { jsonPath?: string }[];
}

export interface CrdCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface CrdSpec {
  group?: string;
  names?: CrdNames;
  scope?: string;
  versions?: CrdVersion[];
  conversion?: { strategy?: string; webhook?: unknown };
  preserveUnknownFields?: boolean;
}

export interface CrdStatus {
  conditions?: CrdCondition[];
  acceptedNames?: CrdNames;
  storedVersions?: string[];
}

export interface Crd extends KubeObject {
  spec: CrdSpec;
  status?: CrdStatus;
}

export const CRD_GROUP = 'apiextensions.k8s.io';
export const CRD_GROUP_RESOURCE = 'apiextensions.k8s.io/customresourcedefinitions';
// apiextensions registry/customresourcedefinition/etcd.go: added at delete time, removed once every object is gone.
export const CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

export function condition(crd: Crd, type: string): CrdCondition | undefined {
  return crd.status?.conditions?.find((c) => c.type === type);
}

export function isTrue(crd: Crd, type: string): boolean {
  return condition(crd, type)?.status === 'True';
}
