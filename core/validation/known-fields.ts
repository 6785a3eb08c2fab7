// Canonical layer: fieldValidation for writes. kubectl sends fieldValidation=Strict on every create,
// replace and apply and validates nothing itself, so unknown fields are caught here: the top-level
// fields of the type (from the registry) and ObjectMeta's.

import type { ResourceType } from '../registry';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

const ALWAYS = ['apiVersion', 'kind', 'metadata'];
const OBJECT_META = new Set([
  'name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp',
  'deletionTimestamp', 'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers',
  'managedFields',
]);

/** apimachinery's wording for each unknown field, e.g. `unknown field "spec2"`, in document order. */
export function unknownFields(type: ResourceType, body: unknown): string[] {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [];
  const known = new Set([...ALWAYS, ...type.fields]);
  const found: string[] = [];
  for (const key of Object.keys(body)) if (!known.has(key)) found.push(`unknown field "${key}"`);
  const meta = (body as { metadata?: unknown }).metadata;
  if (meta && typeof meta === 'object' && !Array.isArray(meta)) {
    for (const key of Object.keys(meta)) if (!OBJECT_META.has(key)) found.push(`unknown field "metadata.${key}"`);
  }
  return found;
}

/** The object without the fields `unknownFields` reports. */
export function pruneUnknown<T extends object>(type: ResourceType, body: T): T {
  const known = new Set([...ALWAYS, ...type.fields]);
  const out = Object.fromEntries(Object.entries(body).filter(([k]) => known.has(k))) as Record<string, unknown>;
  const meta = out.metadata;
  if (meta && typeof meta === 'object' && !Array.isArray(meta)) {
    out.metadata = Object.fromEntries(Object.entries(meta).filter(([k]) => OBJECT_META.has(k)));
  }
  return out as T;
}

export function parseFieldValidation(v: string | null): FieldValidation | undefined {
  if (v === null || v === '') return 'Warn';
  return v === 'Strict' || v === 'Warn' || v === 'Ignore' ? v : undefined;
}
