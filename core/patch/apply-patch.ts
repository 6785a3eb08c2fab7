// Core: one entry for the three patch types kube-apiserver accepts for built-in types.

import { applyJsonPatch } from './json-patch';
import { applyMergePatch } from './merge-patch';
import { applyStrategicMergePatch } from './strategic-merge-patch';
import type { PatchType } from './patch-body';

export function applyPatch(type: PatchType, doc: unknown, patch: unknown, kind: string): unknown {
  if (type === 'json') return applyJsonPatch(doc, patch);
  if (type === 'merge') return applyMergePatch(doc, patch);
  return applyStrategicMergePatch(doc, patch, kind);
}
