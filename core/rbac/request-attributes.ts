// Core: the RBAC attributes of a resource request (apiserver's authorizer.Attributes), as the front door
// authorizes it and the audit log records it.

import type { ResourceRequest } from '../request-info';
import type { RequestAttributes } from './rules';

/** authorizer.Attributes from the request; a namespace object is its own namespace (requestinfo.go). */
export function resourceAttributes(info: Pick<ResourceRequest, 'verb' | 'group' | 'resource' | 'subresource' | 'name' | 'namespace'>): RequestAttributes {
  const namespace = info.resource === 'namespaces' && info.group === '' && info.name ? info.name : info.namespace;
  return {
    verb: info.verb, resourceRequest: true, apiGroup: info.group, resource: info.resource,
    subresource: info.subresource, name: info.name, namespace, path: '',
  };
}
