// Core: whether a CRD schema is structural and uses only what apiextensions v1 allows, with kube's
// messages (apiextensions pkg/apiserver/schema/validation.go ValidateStructural, and the keyword rules
// of pkg/apis/apiextensions/validation/validation.go ValidateCustomResourceDefinitionOpenAPISchema).
// Structural errors are sorted by their text (field and message), as kube sorts them; keyword errors follow
// in walk order.

import { forbidden, invalidValue, required, type FieldCause } from '../validation/names';
import { goRegexpError } from '../regex/go-regexp';
import { estimateProgramSize, scan } from '../regex/scan';
import type { JSONSchemaProps } from './crd-object';

type S = JSONSchemaProps;
const JUNCTORS = ['allOf', 'anyOf', 'oneOf', 'not'] as const;
const UNSUPPORTED = ['$ref', 'id', 'definitions', 'dependencies', 'patternProperties', 'additionalItems'] as const;
const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);
// apiextensions validation.go allowedFieldsAtRootSchema... when the status subresource is enabled: a root
// carrying anything else is refused.
const ROOT_ALLOWED_WITH_STATUS = new Set([
  'description', 'type', 'format', 'title', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum',
  'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'multipleOf', 'required', 'items',
  'properties', 'externalDocs', 'example', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-validations',
]);

/**
 * Program instructions the distinct patterns of one CRD may compile to together: each is compiled at CRD
 * write and again whenever the bounded cache (core/regex) has dropped it. Not kube's (Go has no such
 * bound); real CRDs stay far below (Gateway API's largest pattern, an IPv6 address, is ~1,000).
 */
export const CRD_PATTERN_INSTS = 100_000;

/** Every error of a version's schema at `path` (e.g. `spec.validation.openAPIV3Schema`). */
export function validateSchema(schema: S, path: string, statusSubresource: boolean, patterns = new PatternCheck()): FieldCause[] {
  const structural: FieldCause[] = [];
  const keywords: FieldCause[] = [];
  root(schema, path, structural, statusSubresource);
  walk(schema, path, structural, keywords, 0, patterns);
  // ValidateStructural sorts by the errors' text, field path included.
  const text = (e: FieldCause) => `${e.field}: ${e.message}`;
  structural.sort((a, b) => (text(a) < text(b) ? -1 : text(a) > text(b) ? 1 : 0));
  return [...keywords, ...structural];
}

function root(s: S, path: string, out: FieldCause[], statusSubresource: boolean): void {
  if (s.type !== undefined && s.type !== 'object') out.push(invalidValue(`${path}.type`, s.type, 'must be object at the root'));
  if (s.additionalProperties !== undefined) out.push(forbidden(`${path}.additionalProperties`, 'must not be used at the root'));
  if (s.nullable === true) out.push(forbidden(`${path}.nullable`, 'must be false at the root'));
  if (statusSubresource && s.type !== 'object') {
    out.push(invalidValue(`${path}.type`, s.type ?? '', 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled'));
  }
  if (statusSubresource) {
    for (const k of Object.keys(s)) {
      if (!ROOT_ALLOWED_WITH_STATUS.has(k)) {
        out.push(invalidValue(path, k, `only ${[...ROOT_ALLOWED_WITH_STATUS].join(', ')} fields are allowed at the root of the schema if the status subresource is enabled`));
        break;
      }
    }
  }
  const props = s.properties as Record<string, S> | undefined;
  const meta = props?.metadata;
  if (meta && typeof meta === 'object') {
    const metaProps = Object.keys((meta.properties as object | undefined) ?? {});
    const extra = Object.keys(meta).some((k) => k !== 'type' && k !== 'properties' && k !== 'description');
    if (extra || metaProps.some((p) => p !== 'name' && p !== 'generateName')) {
      out.push(forbidden(`${path}.properties[metadata]`, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
    }
    if ('default' in meta) out.push(forbidden(`${path}.properties[metadata].default`, 'must not be set in top-level metadata'));
  }
}

function hasTypeExemption(s: S): boolean {
  return s['x-kubernetes-int-or-string'] === true || s['x-kubernetes-preserve-unknown-fields'] === true;
}

/**
 * apiextensions schema validation.go validateValueValidation: a pattern must compile with Go's regexp,
 * at every node, inside anyOf/allOf/oneOf/not too. One check per CRD write spans its versions.
 */
export class PatternCheck {
  private readonly seen = new Set<string>();
  private insts = 0;

  check(s: S, path: string, out: FieldCause[]): void {
    const p = s.pattern;
    if (typeof p !== 'string' || !p) return;
    if (!this.seen.has(p)) {
      this.seen.add(p);
      this.insts += estimateProgramSize(scan(p)).insts;
    }
    if (this.insts > CRD_PATTERN_INSTS) {
      out.push(forbidden(`${path}.pattern`, `the schema's patterns together compile to more than ${CRD_PATTERN_INSTS} instructions`));
      return;
    }
    const err = goRegexpError(p);
    if (err) out.push(invalidValue(`${path}.pattern`, p, `must be a valid regular expression, but isn't: ${err}`));
  }
}

function walk(s: S, path: string, structural: FieldCause[], keywords: FieldCause[], depth: number, patterns: PatternCheck): void {
  if (depth > 64 || s === null || typeof s !== 'object') return;
  patterns.check(s, path, structural);
  for (const k of UNSUPPORTED) if (k in s) keywords.push(forbidden(`${path}.${k}`, `${k} is not supported`));
  if (s.type !== undefined && (typeof s.type !== 'string' || !TYPES.has(s.type))) {
    structural.push(invalidValue(`${path}.type`, s.type, 'must be one of array, boolean, integer, number, object, string'));
  }
  if (s.uniqueItems === true) keywords.push(forbidden(`${path}.uniqueItems`, 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  if (s.properties !== undefined && s.additionalProperties !== undefined && s.additionalProperties !== false) {
    keywords.push(forbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
  }
  if (s['x-kubernetes-preserve-unknown-fields'] === false) {
    keywords.push(invalidValue(`${path}.x-kubernetes-preserve-unknown-fields`, false, 'must be true or undefined'));
  }
  if (s['x-kubernetes-embedded-resource'] === true) {
    if (s.type !== 'object') structural.push(invalidValue(`${path}.type`, s.type ?? '', 'must be object if x-kubernetes-embedded-resource is true'));
    if (s.properties === undefined && s['x-kubernetes-preserve-unknown-fields'] !== true) {
      structural.push(required(`${path}.properties`, 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
    }
  }
  if (s.type === 'array' && s.items === undefined) structural.push(required(`${path}.items`, 'must be specified'));
  const listType = s['x-kubernetes-list-type'];
  const mapKeys = s['x-kubernetes-list-map-keys'];
  if (Array.isArray(mapKeys) && mapKeys.length && listType !== 'map') {
    keywords.push(invalidValue(`${path}.x-kubernetes-list-type`, listType ?? '', 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (listType === 'map' && !(Array.isArray(mapKeys) && mapKeys.length)) {
    keywords.push(required(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
  }
  const props = s.properties as Record<string, S> | undefined;
  if (props && typeof props === 'object') {
    for (const [name, child] of Object.entries(props)) {
      const p = `${path}.properties[${name}]`;
      if (child && typeof child === 'object' && child.type === undefined && !hasTypeExemption(child)) {
        structural.push(required(`${p}.type`, 'must not be empty for specified object fields'));
      }
      walk(child, p, structural, keywords, depth + 1, patterns);
    }
  }
  const ap = s.additionalProperties;
  if (ap && typeof ap === 'object') {
    const p = `${path}.additionalProperties`;
    if ((ap as S).type === undefined && !hasTypeExemption(ap as S)) structural.push(required(`${p}.type`, 'must not be empty for specified object fields'));
    walk(ap as S, p, structural, keywords, depth + 1, patterns);
  }
  const items = s.items;
  if (items && typeof items === 'object' && !Array.isArray(items)) {
    const p = `${path}.items`;
    if ((items as S).type === undefined && !hasTypeExemption(items as S)) structural.push(required(`${p}.type`, 'must not be empty for specified array items'));
    walk(items as S, p, structural, keywords, depth + 1, patterns);
  }
  for (const j of JUNCTORS) {
    const branches = s[j];
    if (branches === undefined) continue;
    const list = Array.isArray(branches) ? branches : [branches];
    list.forEach((b, i) => {
      const p = j === 'not' ? `${path}.not` : `${path}.${j}[${i}]`;
      junctor(b as S, p, s, structural, isIntOrStringPattern(s, j));
      nestedPatterns(b as S, p, structural, patterns, depth + 1);
    });
  }
}

// validateNestedValueValidation: patterns under a junctor, through its items, properties,
// additionalProperties and nested junctors.
function nestedPatterns(s: S, path: string, out: FieldCause[], patterns: PatternCheck, depth: number): void {
  if (depth > 64 || !s || typeof s !== 'object' || Array.isArray(s)) return;
  patterns.check(s, path, out);
  if (s.items && typeof s.items === 'object') nestedPatterns(s.items as S, `${path}.items`, out, patterns, depth + 1);
  const props = s.properties as Record<string, S> | undefined;
  if (props && typeof props === 'object') {
    for (const [name, child] of Object.entries(props)) nestedPatterns(child, `${path}.properties[${name}]`, out, patterns, depth + 1);
  }
  if (s.additionalProperties && typeof s.additionalProperties === 'object') {
    nestedPatterns(s.additionalProperties as S, `${path}.additionalProperties`, out, patterns, depth + 1);
  }
  for (const j of JUNCTORS) {
    const branches = s[j];
    if (branches === undefined) continue;
    (Array.isArray(branches) ? branches : [branches]).forEach((b, i) => nestedPatterns(b as S, j === 'not' ? `${path}.not` : `${path}.${j}[${i}]`, out, patterns, depth + 1));
  }
}

// The one allowed typed junctor: x-kubernetes-int-or-string's anyOf:[{type:integer},{type:string}].
function isIntOrStringPattern(s: S, j: string): boolean {
  if (s['x-kubernetes-int-or-string'] !== true || j !== 'anyOf') return false;
  const a = s.anyOf as S[] | undefined;
  return Array.isArray(a) && a.length === 2 && a[0]?.type === 'integer' && a[1]?.type === 'string';
}

// Inside allOf/anyOf/oneOf/not: value validations only, and nothing that the outside does not declare.
function junctor(s: S, path: string, outer: S, structural: FieldCause[], intOrString: boolean): void {
  if (!s || typeof s !== 'object') return;
  if (!intOrString && s.type !== undefined) structural.push(forbidden(`${path}.type`, 'must be empty to be structural'));
  for (const k of ['description', 'title', 'x-kubernetes-list-map-keys', 'x-kubernetes-validations'] as const) {
    if (s[k] !== undefined) structural.push(forbidden(`${path}.${k}`, 'must be empty to be structural'));
  }
  for (const k of ['default', 'additionalProperties', 'x-kubernetes-list-type', 'x-kubernetes-map-type'] as const) {
    if (s[k] !== undefined) structural.push(forbidden(`${path}.${k}`, 'must be undefined to be structural'));
  }
  for (const k of ['nullable', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string'] as const) {
    if (s[k] === true) structural.push(forbidden(`${path}.${k}`, 'must be false to be structural'));
  }
  const props = s.properties as Record<string, S> | undefined;
  const outerProps = (outer.properties ?? {}) as Record<string, S>;
  if (props && typeof props === 'object') {
    for (const name of Object.keys(props)) {
      if (!Object.hasOwn(outerProps, name)) {
        structural.push(required(`${pathOfOuter(path)}.properties[${name}]`, `because it is defined in ${path}.properties[${name}]`));
      }
    }
  }
}

function pathOfOuter(junctorPath: string): string {
  return junctorPath.replace(/\.(allOf|anyOf|oneOf)\[\d+\]$|\.not$/, '');
}
