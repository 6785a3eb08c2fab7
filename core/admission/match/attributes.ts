// Core: one admission request as webhooks and admission policies see it (kube's admission.Attributes plus the
// version the object is presented in): shared by the matcher (./matcher.ts), matchConditions (./conditions.ts)
// and the AdmissionReview request builder (./review-request.ts).

import { subresourceInfo, type ResourceType } from '../../registry';
import type { KubeObject } from '../../object-meta';
import type { UserInfo } from '../../rbac/authorize';
import type { AdmissionOperation, GroupVersionKind, GroupVersionResource, RuleAttributes } from './rules';

export interface RequestAttributes {
  operation: AdmissionOperation;
  /** The type the request addressed (its group, version and resource). */
  type: ResourceType;
  subresource: string;
  /** The request's namespace; for a Namespace object, its own name (as kube's request info). */
  namespace: string;
  /** The object's name; '' for a create that has only a generateName. */
  name: string;
  /** The object after this request (null for DELETE and CONNECT). */
  object: KubeObject | null;
  /** The object before it (null for CREATE). */
  oldObject: KubeObject | null;
  dryRun: boolean;
  user: UserInfo;
  /** CreateOptions, UpdateOptions, PatchOptions or DeleteOptions as sent; null for CONNECT. */
  options?: Record<string, unknown> | null;
}

/** What the matcher needs: the rule fields plus the requested group/version/resource. */
export function ruleAttributes(a: RequestAttributes, resource: GroupVersionResource = gvrOf(a.type)): RuleAttributes {
  return { operation: a.operation, resource, subresource: a.subresource, namespace: a.namespace, name: a.name };
}

export function gvrOf(t: Pick<ResourceType, 'group' | 'version' | 'resource'>): GroupVersionResource {
  return { group: t.group, version: t.version, resource: t.resource };
}

/**
 * The kind of the object a request on `t`/`subresource` carries (kube's attr.GetKind): the type's own kind, or a
 * subresource's (Scale, Binding, Eviction, TokenRequest, a connect subresource's options).
 */
export function kindOf(t: Pick<ResourceType, 'group' | 'version' | 'kind'>, subresource: string): GroupVersionKind {
  switch (subresource) {
    case 'scale':
      return { group: 'autoscaling', version: 'v1', kind: 'Scale' };
    case 'binding':
      return { group: '', version: 'v1', kind: 'Binding' };
    case 'eviction':
      return { group: 'policy', version: 'v1', kind: 'Eviction' };
    case 'token':
      return { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' };
    // Connect subresources: their options kind (PodExecOptions, …; installer.go registers the connecter's options).
    case 'exec':
    case 'attach':
    case 'portforward':
    case 'proxy':
      return { group: '', version: 'v1', kind: subresourceInfo(t, subresource).kind };
    default:
      return { group: t.group, version: t.version, kind: t.kind };
  }
}
