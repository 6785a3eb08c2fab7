// Core: what a field selector can see of an object (the registry strategies' ToSelectableFields) and which
// labels a type accepts (the field-label conversion funcs), with the per-kind 400 text kube-apiserver uses.
import type { ResourceType } from '../registry';
import { goQuote } from '../validation/names';
import type { FieldSelector } from './field-selector';

/** The fields.Set an object is matched against: metadata plus the type's selectable fields, as strings. */
export function objectFields(type: ResourceType, obj: unknown): Record<string, string> {
  const fields: Record<string, string> = { 'metadata.name': stringAt(obj, NAME) };
  // Cluster-scoped strategies build their set with ObjectMetaFieldsSet(meta, false): no namespace.
  if (type.namespaced) fields['metadata.namespace'] = stringAt(obj, NAMESPACE);
  for (const f of selectable(type)) fields[f.label] = stringAt(obj, f);
  return fields;
}

// Every stored object's fields are read on each write (the store's and each replica's cache): the type's paths are
// split once (bench/profile.ts writes-64 with the defaults: the split per field per object was ~1% of the isolate).
interface FieldPath {
  label: string;
  parts: string[];
  isBoolean: boolean;
  fallback?: string[];
}

const compiled = new WeakMap<object, FieldPath[]>();

function fieldPath(label: string, path: string): FieldPath {
  const fallback = FALLBACK_PATHS.get(path);
  return { label, parts: path.split('.'), isBoolean: BOOLEAN_PATHS.has(path), fallback: fallback?.split('.') };
}

function selectable(type: ResourceType): FieldPath[] {
  let paths = compiled.get(type.fieldSelectors);
  if (!paths) {
    paths = Object.entries(type.fieldSelectors).map(([label, path]) => fieldPath(label, path));
    compiled.set(type.fieldSelectors, paths);
  }
  return paths;
}

/** The 400 message for the first label `type` does not accept, or undefined when all are accepted. */
export function checkFieldSelector(type: ResourceType, sel: FieldSelector): string | undefined {
  // A custom resource's conversion func (apiextensions conversion/converter.go ConvertFieldLabel) words it so.
  const rejection = type.custom ? fieldLabelNotSupported : REJECTIONS[`${type.group}/${type.kind}`];
  for (const { field } of sel.requirements) {
    if (!accepts(type, field, rejection !== undefined)) return (rejection ?? defaultRejection)(field);
  }
  return undefined;
}

// Kinds that register a field-label conversion func (pkg/apis/core/v1 and batch/v1 conversion.go), each
// with its own wording. Every other kind falls back to runtime.DefaultMetaV1FieldSelectorConversion.
const fieldLabelNotSupported = (label: string): string => `field label not supported: ${label}`;
const REJECTIONS: Record<string, ((label: string) => string) | undefined> = {
  '/Pod': fieldLabelNotSupported,
  '/Node': fieldLabelNotSupported,
  '/Namespace': fieldLabelNotSupported,
  '/Event': fieldLabelNotSupported,
  '/Secret': fieldLabelNotSupported,
  '/Service': fieldLabelNotSupported,
  '/ReplicationController': fieldLabelNotSupported,
  'batch/Job': (label) => `field label ${goQuote(label)} not supported for Job`,
};

function defaultRejection(label: string): string {
  return `${goQuote(label)} is not a known field selector: only "metadata.name", "metadata.namespace"`;
}

// A registered func lists metadata.namespace only for namespaced kinds (Node and Namespace reject it);
// the default func accepts both metadata labels for every kind.
function accepts(type: ResourceType, label: string, hasConversionFunc: boolean): boolean {
  if (label === 'metadata.name') return true;
  if (label === 'metadata.namespace') return type.namespaced || !hasConversionFunc;
  return Object.hasOwn(type.fieldSelectors, label);
}

// Go reads these from typed bool fields, so an unset one is "false", never "".
const BOOLEAN_PATHS = new Set(['spec.hostNetwork', 'spec.unschedulable']);
// EventToSelectableFields reports source.component, or reportingController (JSON reportingComponent) when empty.
const FALLBACK_PATHS = new Map([['source.component', 'reportingComponent']]);

const NAME = fieldPath('metadata.name', 'metadata.name');
const NAMESPACE = fieldPath('metadata.namespace', 'metadata.namespace');

function stringAt(obj: unknown, path: FieldPath): string {
  const value = goString(valueAt(obj, path.parts), path.isBoolean);
  return value === '' && path.fallback ? goString(valueAt(obj, path.fallback), false) : value;
}

function goString(value: unknown, isBoolean: boolean): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return String(value);
  return isBoolean ? 'false' : '';
}

function valueAt(obj: unknown, parts: readonly string[]): unknown {
  let cur: unknown = obj;
  for (const part of parts) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, part)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}
