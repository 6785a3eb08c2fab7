// Test helpers: run validateTyped on a fixture after a mutation, and kube's cause shapes.
import { validateTyped } from '../../../core/validation/typed';
import type { KubeObject } from '../../../core/object-meta';

export type Any = Record<string, any>;

export function causesOf(obj: Any, old?: Any) {
  return validateTyped(obj.kind, obj as KubeObject, old as KubeObject | undefined);
}

export function mutated<T extends Any>(base: () => T, change: (o: T) => void): T {
  const o = base();
  change(o);
  return o;
}

export const req = (field: string, detail = '') => ({ reason: 'FieldValueRequired', field, message: detail ? `Required value: ${detail}` : 'Required value' });
export const inv = (field: string, shown: string, detail: string) => ({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${shown}: ${detail}` });
export const unsup = (field: string, shown: string, values: string[]) => ({
  reason: 'FieldValueNotSupported', field, message: `Unsupported value: ${shown}: supported values: ${values.map((v) => `"${v}"`).join(', ')}`,
});
export const dup = (field: string, shown: string) => ({ reason: 'FieldValueDuplicate', field, message: `Duplicate value: ${shown}` });
export const forb = (field: string, detail: string) => ({ reason: 'FieldValueForbidden', field, message: `Forbidden: ${detail}` });
export const notFound = (field: string, shown: string) => ({ reason: 'FieldValueNotFound', field, message: `Not found: ${shown}` });

export const DNS_LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
export const DNS_SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
export const CONFIG_KEY =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
export const RANGE = 'must be between 1 and 65535, inclusive';
