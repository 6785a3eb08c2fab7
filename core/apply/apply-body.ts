// Core (server-side apply): the apply request itself — the PatchOptions checks kube-apiserver makes
// (apimachinery meta/v1/validation ValidatePatchOptions) and the body, YAML or JSON, parsed as
// sigs.k8s.io/yaml does for an apply patch (apiserver handlers/patch.go applyPatcher): one object, 400
// `error decoding YAML: …` otherwise; duplicate keys are an error only under fieldValidation=Strict
// (a warning under Warn). Alias expansion is bounded, so a small body cannot expand without limit.

import { parseDocument, isMap as isYamlMap, isSeq, type Node as YamlNode } from 'yaml';
import { badRequest, invalid, StatusError } from '../status';
import { forbidden, required } from '../validation/names';
import type { FieldValidation } from '../schema/decode';
import { validateFieldManager } from './manager-name';

export const APPLY_PATCH_CONTENT_TYPE = 'application/apply-patch+yaml';

export function isApplyPatch(contentType: string): boolean {
  return contentType.split(';')[0].trim().toLowerCase() === APPLY_PATCH_CONTENT_TYPE;
}

/** 422 `PatchOptions.meta.k8s.io "" is invalid: …` for a patch's fieldManager and force. */
export function checkPatchOptions(apply: boolean, fieldManager: string | undefined, force: boolean | undefined): void {
  const causes = [];
  if (!apply && force !== undefined) causes.push(forbidden('force', 'may not be specified for non-apply patch'));
  if (apply && !fieldManager) causes.push(required('fieldManager', 'is required for apply patch'));
  causes.push(...validateFieldManager(fieldManager ?? ''));
  if (causes.length) throw new StatusError(invalid('meta.k8s.io', 'PatchOptions', '', causes));
}

/** 422 `CreateOptions.meta.k8s.io "" is invalid: …` (or UpdateOptions) for a bad fieldManager. */
export function checkWriteOptions(kind: 'CreateOptions' | 'UpdateOptions', fieldManager: string | undefined): void {
  const causes = validateFieldManager(fieldManager ?? '');
  if (causes.length) throw new StatusError(invalid('meta.k8s.io', kind, '', causes));
}

const MAX_ALIAS_COUNT = 100;

export function parseApplyBody(body: string, fieldValidation: FieldValidation, warnings: string[] | undefined): Record<string, unknown> {
  const fast = parseJsonObject(body);
  if (fast) return fast;
  const doc = parseDocument(body, { uniqueKeys: false });
  if (doc.errors.length) throw new StatusError(badRequest(`error decoding YAML: ${doc.errors[0].message.split('\n')[0]}`));
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (e) {
    throw new StatusError(badRequest(`error decoding YAML: ${(e as Error).message.split('\n')[0]}`));
  }
  if (value === null || value === undefined) value = {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new StatusError(badRequest('error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal '
      + `${Array.isArray(value) ? 'array' : typeof value === 'string' ? 'string' : typeof value} into Go value of type map[string]interface {}`));
  }
  if (fieldValidation !== 'Ignore') {
    const dups = duplicateKeys(doc.contents as YamlNode | null, body);
    if (dups.length) {
      const text = `error converting YAML to JSON: yaml: unmarshal errors:\n${dups.map((d) => `  ${d}`).join('\n')}`;
      if (fieldValidation === 'Strict') throw new StatusError(badRequest(`error strict decoding YAML: ${text}`));
      warnings?.push(text);
    }
  }
  return value as Record<string, unknown>;
}

// Clients send JSON (kubectl, client-go, controller-runtime): parse it natively, and fall back to the YAML
// parser only when it is not JSON or may hold a duplicate key (members in the text ≠ members parsed).
const STRINGS = /"(?:[^"\\]|\\.)*"(\s*:)?/g;

function parseJsonObject(body: string): Record<string, unknown> | undefined {
  const start = body.search(/\S/);
  if (start < 0 || body[start] !== '{') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return undefined;
  }
  let textMembers = 0;
  for (const m of body.matchAll(STRINGS)) if (m[1] !== undefined) textMembers++;
  return textMembers === countMembers(value) ? (value as Record<string, unknown>) : undefined;
}

function countMembers(v: unknown): number {
  let n = 0;
  const stack = [v];
  while (stack.length) {
    const x = stack.pop();
    if (Array.isArray(x)) for (const item of x) stack.push(item);
    else if (x && typeof x === 'object') {
      for (const k in x) {
        n++;
        stack.push((x as Record<string, unknown>)[k]);
      }
    }
  }
  return n;
}

// go-yaml's strict mode: `line N: key "k" already set in map`, for each repeated key.
function duplicateKeys(root: YamlNode | null, text: string): string[] {
  const out: string[] = [];
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  const lineOf = (offset: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const stack: (YamlNode | null | undefined)[] = [root];
  while (stack.length) {
    const n = stack.pop();
    if (isYamlMap(n)) {
      const seen = new Set<string>();
      for (const pair of n.items) {
        const keyNode = pair.key as YamlNode & { value?: unknown };
        const key = String(keyNode?.value ?? keyNode);
        if (seen.has(key)) out.push(`line ${lineOf(keyNode?.range?.[0] ?? 0)}: key ${JSON.stringify(key)} already set in map`);
        seen.add(key);
        stack.push(pair.value as YamlNode);
      }
    } else if (isSeq(n)) {
      for (const item of n.items) stack.push(item as YamlNode);
    }
  }
  return out;
}
