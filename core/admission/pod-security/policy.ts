// Core: a namespace's PodSecurity policy from its labels, as kube 1.32 reads them (k8s.io/pod-security-admission
// api.PolicyToEvaluate, ParseLevel, ParseVersion, CompareLevels): each of enforce, audit and warn has a level
// label and a version label; a missing label keeps the default (privileged:latest: edgeplane has no
// PodSecurityConfiguration defaults); a level that does not parse is restricted for enforce and privileged for
// audit and warn (kube fails open there), a version that does not parse is latest; every bad label is a
// field.Invalid on metadata.labels[<key>] with kube's detail.

import { goQuote, invalidValue, type FieldCause } from '../../validation/names';
import type { Level } from './checks';

export const LABEL_PREFIX = 'pod-security.kubernetes.io/';
export type Mode = 'enforce' | 'audit' | 'warn';
const MODES: readonly Mode[] = ['enforce', 'audit', 'warn'];
const LEVELS: readonly Level[] = ['privileged', 'baseline', 'restricted'];
const LEVEL_DETAIL = `must be one of ${LEVELS.join(', ')}`;
const VERSION_DETAIL = 'must be "latest" or "v1.x"';
// ParseVersion's regexp, then strconv.Atoi: a minor beyond int64 does not parse.
const VERSION = /^v1\.(0|[1-9][0-9]*)$/;
const MAX_INT64 = '9223372036854775807';

export interface LevelVersion {
  level: Level;
  version: string; // "latest" or "v1.<minor>"
}

export type Policy = Record<Mode, LevelVersion>;

export interface ParsedPolicy {
  policy: Policy;
  errors: FieldCause[]; // empty when every label parses
}

export const showLevelVersion = (lv: LevelVersion) => `${lv.level}:${lv.version}`;

/** PolicyToEvaluate with the default policy privileged:latest for every mode. */
export function policyToEvaluate(labels: unknown): ParsedPolicy {
  const errors: FieldCause[] = [];
  const policy = {} as Policy;
  const l = labels && typeof labels === 'object' ? (labels as Record<string, unknown>) : {};
  for (const mode of MODES) {
    const lv: LevelVersion = { level: 'privileged', version: 'latest' };
    const levelKey = LABEL_PREFIX + mode;
    const versionKey = `${levelKey}-version`;
    if (Object.prototype.hasOwnProperty.call(l, levelKey)) {
      const raw = String(l[levelKey]);
      if ((LEVELS as readonly string[]).includes(raw)) lv.level = raw as Level;
      else {
        lv.level = mode === 'enforce' ? 'restricted' : 'privileged';
        errors.push(invalidValue(`metadata.labels[${levelKey}]`, raw, LEVEL_DETAIL));
      }
    }
    if (Object.prototype.hasOwnProperty.call(l, versionKey)) {
      const raw = String(l[versionKey]);
      if (parsesAsVersion(raw)) lv.version = raw;
      else {
        lv.version = 'latest';
        errors.push(invalidValue(`metadata.labels[${versionKey}]`, raw, VERSION_DETAIL));
      }
    }
    policy[mode] = lv;
  }
  return { policy, errors };
}

function parsesAsVersion(v: string): boolean {
  if (v === 'latest') return true;
  const m = VERSION.exec(v);
  if (!m) return false;
  const digits = m[1]!;
  return digits.length < MAX_INT64.length || (digits.length === MAX_INT64.length && digits <= MAX_INT64);
}

/** CompareLevels: 0 when equal, -1 when `a` is less strict than `b`, 1 when stricter. */
export function compareLevels(a: Level, b: Level): number {
  return Math.sign(LEVELS.indexOf(a) - LEVELS.indexOf(b));
}

export const sameLevelVersion = (a: LevelVersion, b: LevelVersion) => a.level === b.level && a.version === b.version;

export const fullyPrivileged = (p: Policy) => MODES.every((m) => p[m].level === 'privileged');

/** ErrorList.ToAggregate().Error(): each distinct `<field>: <message>` once; several in brackets. */
export function aggregateMessage(errors: readonly FieldCause[]): string {
  const messages = [...new Set(errors.map((e) => `${e.field}: ${e.message}`))];
  return messages.length === 1 ? messages[0]! : `[${messages.join(', ')}]`;
}

/**
 * exemptNamespaceWarning: an exempt namespace given a policy that is not fully privileged (nor the default, which is
 * fully privileged here) is told the policy is ignored, naming each non-privileged mode whose labels it sets.
 */
export function exemptNamespaceWarning(name: string, policy: Policy, labels: unknown): string | undefined {
  if (fullyPrivileged(policy)) return undefined;
  const l = labels && typeof labels === 'object' ? (labels as Record<string, unknown>) : {};
  const has = (k: string) => Object.prototype.hasOwnProperty.call(l, k);
  const parts: string[] = [];
  for (const mode of MODES) {
    const key = LABEL_PREFIX + mode;
    if (policy[mode].level !== 'privileged' && (has(key) || has(`${key}-version`))) parts.push(`${mode}=${showLevelVersion(policy[mode])}`);
  }
  return `namespace ${goQuote(name)} is exempt from Pod Security, and the policy (${parts.join(', ')}) will be ignored`;
}
