// Core: a CRD's served version over its storage version, with conversion strategy None (apiextensions
// conversion/nop_converter.go): only apiVersion changes. The store keeps objects in the storage version; a written
// body in the requested version is rewritten on the way in, and answers, lists and watch frames on the way out.

import { rewriteMembers, type MemberRewrite } from './json-members';
import type { ApiView } from './view';

type Obj = Record<string, unknown>;

export function crdVersionView(stored: string, requested: string): ApiView {
  const members: MemberRewrite = { values: new Map([['"apiVersion"', [JSON.stringify(stored), JSON.stringify(requested)]]]) };
  const rewrite = (o: Obj | null | undefined) => {
    if (o && typeof o === 'object' && o.apiVersion === stored) o.apiVersion = requested;
  };
  // Watch frames: stored objects start with their apiVersion (asTypedObject orders it first), so the first
  // occurrence is the object's own; a bookmark's object carries only kind and apiVersion.
  const needle = `"apiVersion":${JSON.stringify(stored)}`;
  const replacement = `"apiVersion":${JSON.stringify(requested)}`;
  return {
    apiVersion: requested,
    toStorage(obj) {
      if (obj && typeof obj === 'object' && !Array.isArray(obj) && obj.apiVersion === requested) obj.apiVersion = stored;
      return obj;
    },
    patchToStorage: (text) => text,
    fromStorage(value) {
      if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
      const obj = value as Obj;
      rewrite(obj);
      if (Array.isArray(obj.items)) for (const item of obj.items as Obj[]) rewrite(item);
      if (Array.isArray(obj.rows)) for (const row of obj.rows as { object?: Obj }[]) rewrite(row?.object);
      return obj;
    },
    json: (text) => rewriteMembers(text, members),
    frame: (text) => (text.includes(needle) ? text.replace(needle, replacement) : text),
  };
}
