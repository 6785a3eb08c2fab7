// Core: the status kube's ValidatingAdmissionPolicy type-checking controller writes (apiserver pkg/admission/
// plugin/policy/validating typechecking.go Check): for each validation's expression and messageExpression, the
// fields it selects from `object`, `oldObject` and `params` checked against the OpenAPI schema of every kind the
// matchConstraints name explicitly (no wildcards; at most 10 kinds) and of the paramKind, reported as
// `status.typeChecking.expressionWarnings` in kube's text (`apps/v1, Kind=Deployment: ERROR: <input>:1:12:
// undefined field 'replicas2'`). cel-js does not type expressions against schemas, so what is checked is the
// field selection chains rooted at those variables (has() included); types of values are not.

import { kindNode } from '../../schema/compile';
import { walkCel } from '../../crd/cel/walk';
import type { SchemaNode } from '../../schema/node';
import { lookupType, typesInGroupVersion } from '../../registry';
import { policyEnvironment } from './environment';
import type { ValidatingAdmissionPolicy } from './types';

// typechecking.go maxTypesToCheck.
const MAX_TYPES = 10;

interface Gvk {
  group: string;
  version: string;
  kind: string;
}

const gvkText = (g: Gvk) => `${g.group}/${g.version}, Kind=${g.kind}`;

function matchedKinds(p: ValidatingAdmissionPolicy): Gvk[] {
  const out = new Map<string, Gvk>();
  for (const rule of p.spec?.matchConstraints?.resourceRules ?? []) {
    const groups = (rule.apiGroups ?? []).filter((g) => g !== '*').sort();
    const versions = (rule.apiVersions ?? []).filter((v) => v !== '*').sort();
    const resources = (rule.resources ?? []).filter((r) => !r.includes('*') && !r.includes('/')).sort();
    for (const group of groups) {
      for (const version of versions) {
        for (const resource of resources) {
          const t = lookupType(group, version, resource);
          if (!t) continue;
          const g = { group, version, kind: t.kind };
          out.set(gvkText(g), g);
          if (out.size >= MAX_TYPES) return sorted(out);
        }
      }
    }
  }
  return sorted(out);
}

const sorted = (m: Map<string, Gvk>) => [...m.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([, g]) => g);

function paramsKind(p: ValidatingAdmissionPolicy): Gvk | undefined {
  const k = p.spec?.paramKind;
  if (!k?.apiVersion || !k.kind) return undefined;
  const [group, version] = k.apiVersion.includes('/') ? k.apiVersion.split('/', 2) : ['', k.apiVersion];
  return typesInGroupVersion(group, version).some((t) => t.kind === k.kind) ? { group, version, kind: k.kind } : undefined;
}

interface Node {
  op?: string;
  args?: unknown;
  pos?: number;
}

/** Select chains rooted at a variable: [variable, [field, dot position]...]. */
function chains(ast: unknown): { root: string; fields: { name: string; at: number }[] }[] {
  const out: { root: string; fields: { name: string; at: number }[] }[] = [];
  walkCel(ast, (n) => {
    const node = n as Node;
    if (node.op === '.' || node.op === '.?') {
      const fields: { name: string; at: number }[] = [];
      let cur: Node = node;
      while ((cur.op === '.' || cur.op === '.?') && Array.isArray(cur.args)) {
        fields.unshift({ name: String(cur.args[1]), at: Math.max(0, (cur.pos ?? 1) - 1) });
        cur = cur.args[0] as Node;
      }
      if (cur.op === 'id' && typeof cur.args === 'string') out.push({ root: cur.args, fields });
      return cur.op === 'id' ? undefined : cur;
    }
    return node.op !== 'value' && node.op !== 'id' ? node.args : undefined;
  });
  return out;
}

function undefinedField(root: SchemaNode, fields: { name: string; at: number }[]): { name: string; at: number } | undefined {
  let n: SchemaNode | undefined = root;
  for (const f of fields) {
    if (!n || n.type !== 'object') return undefined;
    if (n.properties && Object.hasOwn(n.properties, f.name)) n = n.properties[f.name];
    else if (n.additionalProperties) n = n.additionalProperties;
    else if (n.preserveUnknownFields || !n.properties) return undefined;
    else return f;
  }
  return undefined;
}

function issue(source: string, at: number, message: string): string {
  const before = source.slice(0, at);
  const line = before.split('\n').length;
  const col = at - (before.lastIndexOf('\n') + 1);
  return `ERROR: <input>:${line}:${col + 1}: ${message}\n | ${source.split('\n')[line - 1] ?? ''}\n | ${'.'.repeat(col)}^`;
}

function checkExpression(source: string, kinds: Gvk[], params: Gvk | undefined): string | undefined {
  let ast: unknown;
  try {
    ast = (policyEnvironment().parse(source) as unknown as { ast: unknown }).ast;
  } catch {
    return undefined; // validation reports it
  }
  const found = chains(ast).filter((c) => c.root === 'object' || c.root === 'oldObject' || c.root === 'params');
  if (!found.length) return undefined;
  const messages: string[] = [];
  const targets = kinds.length ? kinds : [undefined];
  for (const kind of targets) {
    const issues: { at: number; text: string }[] = [];
    for (const c of found) {
      const gvk = c.root === 'params' ? params : kind;
      const schema = gvk ? kindNode(gvk.group, gvk.version, gvk.kind) : undefined;
      if (!schema) continue;
      const bad = undefinedField(schema, c.fields);
      if (bad) issues.push({ at: bad.at, text: issue(source, bad.at, `undefined field '${bad.name}'`) });
    }
    issues.sort((a, b) => a.at - b.at);
    if (issues.length) messages.push(`${kind ? gvkText(kind) : params ? gvkText(params) : ''}: ${issues.map((i) => i.text).join('\n')}\n`);
  }
  return messages.length ? messages.join('\n') : undefined;
}

/** status.typeChecking.expressionWarnings for the policy (empty when nothing is found). */
export function expressionWarnings(p: ValidatingAdmissionPolicy): { fieldRef: string; warning: string }[] {
  const kinds = matchedKinds(p);
  const params = paramsKind(p);
  if (!kinds.length && !params) return [];
  const out: { fieldRef: string; warning: string }[] = [];
  (p.spec?.validations ?? []).forEach((v, i) => {
    const w = typeof v?.expression === 'string' ? checkExpression(v.expression, kinds, params) : undefined;
    if (w) out.push({ fieldRef: `spec.validations[${i}].expression`, warning: w });
    const m = typeof v?.messageExpression === 'string' && v.messageExpression ? checkExpression(v.messageExpression, kinds, params) : undefined;
    if (m) out.push({ fieldRef: `spec.validations[${i}].messageExpression`, warning: m });
  });
  return out;
}
