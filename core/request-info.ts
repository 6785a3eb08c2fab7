// Front door: turns an API path and method into what is being asked (verb, type, namespace, name,
// subresource), as apiserver's pkg/endpoints/request/requestinfo.go does.

import { lookupType, type ResourceType } from './registry';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export interface ResourceRequest {
  verb: Verb;
  group: string;
  version: string;
  resource: string; // as written in the path, even when unknown
  type: ResourceType | undefined;
  namespace: string; // '' when cluster-wide
  name: string; // '' for collections
  subresource: string; // '' for the main resource
  subpath?: string; // what follows the subresource (a proxy's path); requestinfo.go ignores it
}

// A namespace's own subresources: /api/v1/namespaces/{name}/status is not a resource called "status".
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

/** Returns undefined when the path is not a resource path (discovery, health, unknown prefixes). */
export function parseResourcePath(method: string, path: string, watchParam: boolean): ResourceRequest | undefined {
  const parts = path.split('/').filter((p) => p !== '');
  let group: string;
  let version: string;
  let rest: string[];
  if (parts[0] === 'api' && parts.length >= 3) {
    group = '';
    version = parts[1];
    rest = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 4) {
    group = parts[1];
    version = parts[2];
    rest = parts.slice(3);
  } else {
    return undefined;
  }
  let legacyWatch = false;
  if (rest[0] === 'watch') {
    legacyWatch = true;
    rest = rest.slice(1);
    if (rest.length === 0) return undefined;
  }
  let namespace = '';
  if (rest[0] === 'namespaces' && rest.length > 1) {
    namespace = rest[1];
    if (rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2])) rest = rest.slice(2);
  }
  const resource = rest[0];
  let name = rest[1] ?? '';
  const subresource = rest[2] ?? '';
  const subpath = rest.slice(3).join('/');
  if (resource === 'namespaces' && !(rest.length > 2 && !NAMESPACE_SUBRESOURCES.has(rest[2]))) {
    // The namespace object itself: /api/v1/namespaces/{name}[/status]; it lives in no namespace.
    name = rest[1] ?? '';
    namespace = '';
  }
  const type = lookupType(group, version, resource);
  // requestinfo.go reads the watch parameter only for a collection; /watch/ paths watch one object too.
  const watch = legacyWatch || (watchParam && !name);
  const info: ResourceRequest = { verb: verbFor(method, name, watch), group, version, resource, type, namespace, name, subresource };
  if (subpath) info.subpath = subpath;
  return info;
}

function verbFor(method: string, name: string, watch: boolean): Verb {
  switch (method) {
    case 'POST':
      return 'create';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return name ? 'delete' : 'deletecollection';
    default:
      if (watch) return 'watch';
      return name ? 'get' : 'list';
  }
}
