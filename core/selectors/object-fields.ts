// Core: what a field selector can see of an object (the registry strategies' ToSelectableFields) and which
// labels a type accepts (the field-label conversion funcs), with the per-kind 400 text kube-apiserver uses.
import type { ResourceType } from '../registry';
import { goQuote } from '../validation/names';
import type { FieldSelector } from './field-selector';

/** The fields.Set an object is matched against: metadata plus the type's selectable fields, as strings. */
export function objectFields(type: ResourceType, obj: unknown): Record<string, string> {
  const fields: Record<string, string> = { 'metadata.name': stringAt(obj, 'metadata.name') };
  // Cluster-scoped strategies build their set with ObjectMetaFieldsSet(meta, false): no namespace.
  if (type.namespaced) fields['metadata.namespace'] = stringAt(obj, 'metadata.namespace');
  for (const [label, path] of Object.entries(type.fieldSelectors)) fields[label] = stringAt(obj, path);
  return fields;
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

function stringAt(obj: unknown, path: string): string {
  const value = goString(valueAt(obj, path), BOOLEAN_PATHS.has(path));
  const fallback = FALLBACK_PATHS.get(path);
  return value === '' && fallback ? goString(valueAt(obj, fallback), false) : value;
}

function goString(value: unknown, isBoolean: boolean): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return String(value);
  return isBoolean ? 'false' : '';
}

function valueAt(obj: unknown, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, part)) return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}
