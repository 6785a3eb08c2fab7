// Front door: what representation the client asked for. kubectl get asks for a meta.k8s.io/v1 Table
// (with a JSON fallback); everything else gets plain JSON.

import type { ListFormat } from '../core/list-render';
import type { IncludeObject } from '../core/table';
import { notAcceptable, StatusError } from '../core/status';

export function listFormat(accept: string | undefined, includeObject: string | undefined): ListFormat {
  const ranges = (accept ?? '').split(',').map((r) => r.trim()).filter(Boolean);
  if (ranges.length === 0) return { as: 'List' };
  for (const range of ranges) {
    const [mediaType, ...params] = range.split(';').map((p) => p.trim());
    const p = Object.fromEntries(params.map((kv) => kv.split('=').map((s) => s.trim())));
    if (!isJson(mediaType)) continue;
    if (p.as === 'Table' && p.g === 'meta.k8s.io' && p.v === 'v1') {
      return { as: 'Table', includeObject: parseIncludeObject(includeObject) };
    }
    if (!p.as) return { as: 'List' };
  }
  throw new StatusError(notAcceptable(
    'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
  ));
}

function isJson(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType === '*/*' || mediaType === 'application/*';
}

function parseIncludeObject(v: string | undefined): IncludeObject {
  return v === 'None' || v === 'Object' ? v : 'Metadata';
}
