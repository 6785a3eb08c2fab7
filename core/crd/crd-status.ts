// Core: a CRD's status as kube's controllers would set it, computed in the store's write transaction
// (one writer per CRD store, so no controller delays are needed): the naming controller's NamesAccepted
// and acceptedNames (apiextensions pkg/controller/status/naming_controller.go), the establishing
// controller's Established (pkg/controller/establish), and the registry's storedVersions (strategy.go).

import { timestamp } from '../object-meta';
import type { ResourceType } from '../registry';
import type { Crd, CrdCondition, CrdNames } from './crd-object';

/**
 * Sets acceptedNames, NamesAccepted, Established and storedVersions on `crd` (a create when `old` is
 * undefined). `others`: every other CRD; `builtIns`: the built-in types, whose names count as taken.
 */
export function computeCrdStatus(crd: Crd, old: Crd | undefined, others: Iterable<Crd>, builtIns: readonly ResourceType[], now: number): void {
  const group = crd.spec.group ?? '';
  const taken = new Set<string>(); // plural, singular and shortNames share one namespace
  const kinds = new Set<string>(); // kind and listKind share another
  for (const o of others) {
    if (o.spec?.group !== group || o.metadata.name === crd.metadata.name) continue;
    const n = o.status?.acceptedNames ?? {};
    for (const x of [n.plural, n.singular, ...(n.shortNames ?? [])]) if (x) taken.add(x);
    for (const x of [n.kind, n.listKind]) if (x) kinds.add(x);
  }
  for (const t of builtIns) {
    if (t.group !== group) continue;
    for (const x of [t.resource, t.singular, ...t.shortNames]) taken.add(x);
    kinds.add(t.kind);
    kinds.add(`${t.kind}List`);
  }
  const wanted = crd.spec.names ?? {};
  const previous = old?.status?.acceptedNames;
  const status = (crd.status ??= {});
  const conflict = nameConflict(wanted, taken, kinds);
  let namesAccepted: CrdCondition;
  if (conflict) {
    namesAccepted = { type: 'NamesAccepted', status: 'False', reason: conflict.reason, message: `"${conflict.name}" is already in use` };
    // Accepted names stay accepted; a new CRD has none.
    status.acceptedNames = previous ?? { plural: '', kind: '' };
  } else {
    namesAccepted = { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' };
    status.acceptedNames = acceptedOf(wanted);
  }
  const wasEstablished = old?.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
  const established: CrdCondition = wasEstablished || !conflict
    ? { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }
    : { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' };
  const conditions = (old?.status?.conditions ?? []).filter((c) => c.type !== 'NamesAccepted' && c.type !== 'Established');
  status.conditions = [
    withTransition(namesAccepted, old, now),
    withTransition(established, old, now),
    ...conditions,
  ];
  const stored = [...(old?.status?.storedVersions ?? [])];
  const storage = crd.spec.versions?.find((v) => v.storage)?.name;
  if (storage && !stored.includes(storage)) stored.push(storage);
  status.storedVersions = stored;
}

function acceptedOf(n: CrdNames): CrdNames {
  const out: CrdNames = { plural: n.plural ?? '', singular: n.singular, kind: n.kind ?? '', listKind: n.listKind };
  if (n.shortNames?.length) out.shortNames = [...n.shortNames];
  if (n.categories?.length) out.categories = [...n.categories];
  return out;
}

function nameConflict(n: CrdNames, taken: Set<string>, kinds: Set<string>): { reason: string; name: string } | undefined {
  if (n.plural && taken.has(n.plural)) return { reason: 'PluralConflict', name: n.plural };
  if (n.singular && taken.has(n.singular)) return { reason: 'SingularConflict', name: n.singular };
  for (const s of n.shortNames ?? []) if (taken.has(s)) return { reason: 'ShortNamesConflict', name: s };
  if (n.kind && kinds.has(n.kind)) return { reason: 'KindConflict', name: n.kind };
  if (n.listKind && kinds.has(n.listKind)) return { reason: 'ListKindConflict', name: n.listKind };
  return undefined;
}

/** Keeps lastTransitionTime when the status did not change, as apiextensions SetCRDCondition does. */
export function withTransition(c: CrdCondition, old: Crd | undefined, now: number): CrdCondition {
  const prev = old?.status?.conditions?.find((x) => x.type === c.type);
  const at = prev && prev.status === c.status && prev.lastTransitionTime ? prev.lastTransitionTime : timestamp(now);
  return { type: c.type, status: c.status, lastTransitionTime: at, reason: c.reason, message: c.message };
}

/** Sets (or replaces) one condition, keeping the others' order. */
export function setCondition(crd: Crd, c: CrdCondition, now: number): void {
  const status = (crd.status ??= {});
  const list = status.conditions ?? [];
  const next = withTransition(c, crd, now);
  const i = list.findIndex((x) => x.type === c.type);
  status.conditions = i >= 0 ? list.map((x, j) => (j === i ? next : x)) : [...list, next];
}
