// Core (server-side apply): who owns what after a write, as structured-merge-diff merge/update.go's
// Updater does it.
// - update (every non-apply write): the writer takes over what it changed; what was removed leaves
//   every owner; others keep the rest (always forced).
// - apply: live ⊕ config; the applier owns exactly fieldset(config); fields it owned before and no
//   longer applies are pruned unless someone else owns them; other owners of fields whose value the
//   apply changed conflict, unless forced (then they lose them). Equal values are shared, not conflicts.
// Sets recorded at another apiVersion are kept only when the Updater says that version converts (a
// CRD's served versions, conversion None: the paths are the same); others are dropped, as kube drops
// versions its scheme no longer knows.

import type { SchemaNode } from '../schema/node';
import { compare, filterComparison, type Comparison } from './compare';
import { FieldSet } from './field-set';
import { mergeValues } from './merge';
import { removeItems } from './remove';
import { toFieldSet } from './to-field-set';
import { atomOf, valuesEqual } from './schema-view';
import type { PathElement } from './path-element';

export interface VersionedSet {
  set: FieldSet;
  apiVersion: string;
  applied: boolean;
}

/** Manager identifier (kube's JSON of manager/operation/apiVersion/subresource) → its fields. */
export type ManagedFields = Map<string, VersionedSet>;

export interface Conflict {
  manager: string;
  path: PathElement[];
}

export class Conflicts extends Error {
  constructor(readonly conflicts: Conflict[]) {
    super('conflicts');
  }
}

export interface Updater {
  node: SchemaNode;
  version: string;
  /** The reset fields of the endpoint (status on the main resource, all but status on /status). */
  filter?: (s: FieldSet) => FieldSet;
  /** Other apiVersions whose sets are kept as they are (a CRD's versions under conversion None). */
  convertible?: (apiVersion: string) => boolean;
}

function dropOtherVersions(u: Updater, managers: ManagedFields): ManagedFields {
  const out: ManagedFields = new Map();
  for (const [m, vs] of managers) if (vs.apiVersion === u.version || u.convertible?.(vs.apiVersion)) out.set(m, vs);
  return out;
}

function updateOwners(u: Updater, oldObj: unknown, newObj: unknown, managers: ManagedFields, workflow: string, force: boolean): Comparison {
  const cmp = filterComparison(compare(u.node, oldObj, newObj), u.filter);
  const conflicts = new Map<string, FieldSet>();
  let changed: FieldSet | undefined;
  for (const [manager, vs] of managers) {
    if (manager === workflow) continue;
    changed ??= cmp.modified.union(cmp.added);
    const c = vs.set.intersection(changed);
    if (!c.empty()) conflicts.set(manager, c);
  }
  if (!force && conflicts.size > 0) {
    const list: Conflict[] = [];
    for (const manager of [...conflicts.keys()].sort()) {
      for (const path of conflicts.get(manager)!.paths()) list.push({ manager, path });
    }
    throw new Conflicts(list);
  }
  for (const [manager, c] of conflicts) {
    const vs = managers.get(manager)!;
    managers.set(manager, { ...vs, set: vs.set.difference(c) });
  }
  if (!cmp.removed.empty()) {
    for (const [manager, vs] of managers) {
      // An owner untouched by the removal keeps its very set (managed-fields.ts writes it out as read).
      if (manager === workflow || !vs.set.overlaps(cmp.removed)) continue;
      managers.set(manager, { ...vs, set: vs.set.difference(cmp.removed) });
    }
  }
  for (const [manager, vs] of managers) if (vs.set.empty()) managers.delete(manager);
  return cmp;
}

/** A non-apply write by `manager`: returns the new owners. */
export function update(u: Updater, live: unknown, next: unknown, managers: ManagedFields, manager: string): ManagedFields {
  const m = dropOtherVersions(u, managers);
  const cmp = updateOwners(u, live, next, m, manager, true);
  const previous = m.get(manager)?.set;
  let set: FieldSet;
  if (!previous) {
    // A create (or a manager's first write): the comparison's own `added` becomes the set (nothing else holds it
    // once updateOwners is done), so it is not copied (a copy per create: ~1% of a store-only create's CPU).
    set = cmp.added;
    if (!cmp.modified.empty()) set.addAll(cmp.modified);
  } else {
    set = previous.difference(cmp.removed);
    set.addAll(cmp.modified);
    set.addAll(cmp.added);
  }
  if (u.filter) set = u.filter(set);
  if (set.empty()) m.delete(manager);
  else m.set(manager, { set, apiVersion: u.version, applied: false });
  return m;
}

export interface ApplyResult {
  /** The new object, or undefined when the apply changes nothing. */
  object: unknown;
  managers: ManagedFields;
}

/** An apply of `config` by `manager`; throws Conflicts unless forced. */
export function apply(u: Updater, live: unknown, config: unknown, managers: ManagedFields, manager: string, force: boolean): ApplyResult {
  const m = dropOtherVersions(u, managers);
  let merged = mergeValues(u.node, live, config);
  const last = m.get(manager);
  let set = toFieldSet(u.node, config);
  if (u.filter) set = u.filter(set);
  m.set(manager, { set, apiVersion: u.version, applied: true });
  // Nothing to prune when the applier still applies everything it did (prune would be the identity).
  if (last && !last.set.difference(set).empty()) merged = prune(u, merged, m, last);
  updateOwners(u, live, merged, m, manager, force);
  return { object: valuesEqual(live, merged) ? undefined : merged, managers: m };
}

// SMD Updater.prune: drop what the applier owned before and applies no more, then put back whatever
// another owner (or the applier's new set) still owns, and descendants nobody listed.
function prune(u: Updater, merged: unknown, managers: ManagedFields, last: VersionedSet | undefined): unknown {
  if (!last || last.set.empty()) return merged;
  const named = (s: FieldSet) => ensureNamedFieldsAreMembers(u.node, s);
  let pruned = removeItems(u.node, merged, named(last.set));
  const managed = new FieldSet();
  for (const vs of managers.values()) managed.addAll(vs.set);
  // addBackOwnedItems
  const mergedSet = named(toFieldSet(u.node, merged));
  let prunedSet = named(toFieldSet(u.node, pruned));
  pruned = removeItems(u.node, merged, mergedSet.difference(prunedSet.union(named(managed))));
  // addBackDanglingItems
  prunedSet = named(toFieldSet(u.node, pruned));
  return removeItems(u.node, merged, mergedSet.difference(prunedSet).intersection(named(last.set)));
}

/** Struct fields that are parents in `set` become members too (SMD Set.EnsureNamedFieldsAreMembers). */
export function ensureNamedFieldsAreMembers(node: SchemaNode, set: FieldSet): FieldSet {
  const out = new FieldSet();
  const a = atomOf(node, {}); // only deduced nodes look at the value: they hold maps here
  for (const [k, n] of set.nodes) {
    let childNode: SchemaNode | undefined;
    let member = n.member;
    if (a.t === 'map' && n.pe.kind === 0) {
      const field = a.fields?.[n.pe.name];
      if (field && n.children) member = true;
      childNode = field ?? a.elem;
    } else if (a.t === 'list' && n.pe.kind === 1) {
      childNode = a.elem;
    }
    const children = n.children ? (childNode ? ensureNamedFieldsAreMembers(childNode, n.children) : n.children.clone()) : undefined;
    out.nodes.set(k, { pe: n.pe, member, children });
  }
  return out;
}
