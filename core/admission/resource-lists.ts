// Core: arithmetic on ResourceLists (quota/v1 helpers Add, LessThanOrEqual, Mask) over exact quantities
// (core/quantity.ts), and the pod's effective requests and limits (component-helpers resource.PodRequests /
// PodLimits): regular containers and sidecars summed, each init container's need on top of the sidecars started
// before it, the larger of the two, plus overhead.

import { compareQuantity, formatQuantity, parseQuantity, tryParseQuantity, type Quantity } from '../quantity';

export type ResourceList = Record<string, string>;
type Obj = Record<string, any>;

// Two quantities whose leading digits are this many powers of ten apart: the smaller cannot change a comparison
// a quota or limit makes, and scaling it would cost a BigInt as long as the gap.
const MAX_EXPONENT_GAP = 400;

/** The sum of two quantities, rendered as Quantity.String() does after Add (the first operand's format). */
export function addQuantity(a: string, b: string): string {
  const x = quantity(a);
  const y = quantity(b);
  if (y.mantissa === 0n) return formatQuantity({ ...x, text: undefined });
  if (x.mantissa === 0n) return formatQuantity({ ...y, text: undefined });
  const e = Math.min(x.exp10, y.exp10);
  if (Math.max(x.exp10, y.exp10) - e > MAX_EXPONENT_GAP) return x.exp10 > y.exp10 ? formatQuantity({ ...x, text: undefined }) : formatQuantity({ ...y, text: undefined });
  const mantissa = x.mantissa * 10n ** BigInt(x.exp10 - e) + y.mantissa * 10n ** BigInt(y.exp10 - e);
  return formatQuantity({ mantissa, exp10: e, format: x.format });
}

/** -1, 0, 1; an unparsable quantity counts as 0 (validation refused it before). */
export function compare(a: string, b: string): number {
  return compareQuantity(quantity(a), quantity(b));
}

export function quantity(text: unknown): Quantity {
  const q = tryParseQuantity(text);
  return typeof q === 'string' ? parseQuantity('0') : q;
}

/** Quantity.String() of a value as stored. */
export function show(text: unknown): string {
  return formatQuantity(quantity(text));
}

export function addLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = k in out ? addQuantity(out[k], v) : show(v);
  return out;
}

/** SubtractWithNonNegativeResult, then RemoveZeros: what `a` uses beyond `b`, only the names where that is above 0. */
export function usageBeyond(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = {};
  for (const [k, v] of Object.entries(a)) {
    if (!(k in b)) {
      if (compare(v, '0') > 0) out[k] = show(v);
      continue;
    }
    if (compare(v, b[k]) <= 0) continue;
    const y = quantity(b[k]);
    out[k] = addQuantity(v, formatQuantity({ ...y, mantissa: -y.mantissa, text: undefined }));
  }
  return out;
}

function maxLists(a: ResourceList, b: ResourceList): ResourceList {
  const out: ResourceList = { ...a };
  for (const [k, v] of Object.entries(b)) if (!(k in out) || compare(v, out[k]) > 0) out[k] = v;
  return out;
}

export function resourceMap(v: unknown): ResourceList {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
  const out: ResourceList = {};
  for (const [k, q] of Object.entries(v as Obj)) if (typeof q === 'string' || typeof q === 'number') out[k] = String(q);
  return out;
}

function list(v: unknown): Obj[] {
  return Array.isArray(v) ? v.filter((x) => x && typeof x === 'object') : [];
}

/** PodRequests (which: 'requests') or PodLimits (which: 'limits'). */
export function podResources(pod: Obj, which: 'requests' | 'limits'): ResourceList {
  const spec = (pod?.spec ?? {}) as Obj;
  let regular: ResourceList = {};
  for (const c of list(spec.containers)) regular = addLists(regular, resourceMap(c.resources?.[which]));
  let sidecars: ResourceList = {};
  let initNeed: ResourceList = {};
  for (const c of list(spec.initContainers)) {
    const own = resourceMap(c.resources?.[which]);
    if (c.restartPolicy === 'Always') {
      sidecars = addLists(sidecars, own);
      initNeed = maxLists(initNeed, sidecars);
    } else {
      initNeed = maxLists(initNeed, addLists(sidecars, own));
    }
  }
  let total = maxLists(addLists(regular, sidecars), initNeed);
  if (spec.overhead) total = addLists(total, resourceMap(spec.overhead));
  return total;
}
