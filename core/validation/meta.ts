// Core: the ObjectMeta rules beyond name, namespace, labels and annotations (which object-meta.ts
// checks): ownerReferences and finalizers, after apimachinery ValidateObjectMeta (v1.32) and core's
// validateKubeFinalizerName.
import { forbidden, goQuote, invalidValue, labelKeyMessages, type FieldCause } from './names';
import { Causes, isObj, type Obj } from './shape';

const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

export function validateMetaExtras(v: Causes, metaRaw: unknown): void {
  if (!isObj(metaRaw)) return;
  const meta: Obj = metaRaw;
  const gen = v.int(meta.generation, 'metadata.generation');
  if (gen !== undefined && gen < 0) v.add(invalidValue('metadata.generation', gen, 'must be greater than or equal to 0'));
  ownerReferences(v, meta.ownerReferences);
  // A non-list is reported by validateObject itself.
  if (!Array.isArray(meta.finalizers)) return;
  const path = 'metadata.finalizers';
  const finalizers = v.strs(meta.finalizers, path);
  for (const f of finalizers) for (const m of labelKeyMessages(f)) v.add(invalidValue(path, f, m));
  if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    v.add(invalidValue(path, finalizers, 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  for (const f of finalizers) {
    if (!f.includes('/') && !STANDARD_FINALIZERS.has(f)) {
      v.add(invalidValue(path, f, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  }
}

/**
 * apimachinery ValidateNoNewFinalizers, which ValidateObjectMetaAccessorUpdate runs first when the old object is
 * being deleted: the finalizers of `next` not in `old`, as a sorted set printed with Go's %#v.
 */
export function noNewFinalizers(next: unknown, old: unknown): FieldCause[] {
  if (!Array.isArray(next)) return [];
  const had = new Set(Array.isArray(old) ? old.map(String) : []);
  const extra = [...new Set(next.map(String))].filter((f) => !had.has(f)).sort(byCodePoint);
  if (extra.length === 0) return [];
  return [forbidden('metadata.finalizers', `no new finalizers can be added if the object is being deleted, found new finalizers []string{${extra.map(goQuote).join(', ')}}`)];
}

/** Go's string order (UTF-8 bytes, i.e. code points), which sets.List sorts by. */
function byCodePoint(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < x.length && i < y.length; i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** ValidateOwnerReferences: causes are reported on `metadata.ownerReferences.<field>`, without an index. */
function ownerReferences(v: Causes, raw: unknown): void {
  const path = 'metadata.ownerReferences';
  let controller = '';
  v.objs(raw, path).forEach((ref, i) => {
    const p = `${path}[${i}]`;
    const apiVersion = v.str(ref.apiVersion, `${p}.apiVersion`) ?? '';
    const kind = v.str(ref.kind, `${p}.kind`) ?? '';
    const name = v.str(ref.name, `${p}.name`) ?? '';
    const uid = v.str(ref.uid, `${p}.uid`) ?? '';
    const parts = apiVersion.split('/');
    const version = parts.length === 1 ? parts[0] : parts.length === 2 ? parts[1] : '';
    if (version === '') v.add(invalidValue(`${path}.apiVersion`, apiVersion, 'version must not be empty'));
    if (kind === '') v.add(invalidValue(`${path}.kind`, kind, 'must not be empty'));
    if (name === '') v.add(invalidValue(`${path}.name`, name, 'must not be empty'));
    if (uid === '') v.add(invalidValue(`${path}.uid`, uid, 'must not be empty'));
    if (v.bool(ref.controller, `${p}.controller`) === true) {
      const current = `${kind}/${name}`;
      if (controller) {
        v.add(invalidValue(path, raw, `Only one reference can have Controller set to true. Found "true" in references for ${controller} and ${current}`));
      } else {
        controller = current;
      }
    }
  });
}
