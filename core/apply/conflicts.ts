// Core (server-side apply): the 409 an apply with conflicts gets, word for word as kube-apiserver
// writes it (apimachinery managedfields/internal/conflict.go, api/errors NewApplyConflict).

import { fieldManagerConflict, type Status, type StatusCause } from '../status';
import { goQuote } from '../validation/names';
import { parseIdentifier } from './managed-fields';
import { pathString } from './path-element';
import type { Conflict } from './updater';

/** `"name"`, ` with subresource "scale"`, and ` using <apiVersion>` for Update entries. */
export function printManager(id: string): string {
  let e;
  try {
    e = parseIdentifier(id);
  } catch {
    return goQuote(id);
  }
  let s = goQuote(e.manager ?? '');
  if (e.subresource) s = `${s} with subresource ${goQuote(e.subresource)}`;
  if (e.operation === 'Update') return `${s} using ${e.apiVersion ?? ''}`;
  return s;
}

export function conflictMessage(conflicts: Conflict[]): string {
  if (conflicts.length === 1) {
    return `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0].manager)}: ${pathString(conflicts[0].path)}`;
  }
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) {
    const list = byManager.get(c.manager) ?? [];
    list.push(pathString(c.path));
    byManager.set(c.manager, list);
  }
  const lines: string[] = [];
  for (const m of [...byManager.keys()].sort()) {
    lines.push(`conflicts with ${printManager(m)}:`);
    for (const p of byManager.get(m)!) lines.push(`- ${p}`);
  }
  return `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
}

export function conflictStatus(conflicts: Conflict[]): Status {
  const causes: StatusCause[] = conflicts.map((c) => ({
    reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.manager)}`, field: pathString(c.path),
  }));
  return fieldManagerConflict(conflictMessage(conflicts), causes);
}
