// Core: reading a decoded-but-untrusted body during validation. A typed Go decoder would have refused a
// value of the wrong JSON type with 400; edgeplane's decoders may let one through, so every read here
// checks the type, records one Invalid cause for a mismatch and hands back "absent" so validation goes on
// without throwing. Field paths are built as field.Path prints them: `a.b[0].c`, `data[key]`.
import { invalidValue, type FieldCause } from './names';

export type Obj = Record<string, unknown>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Collects causes in the order kube's validators append them. */
export class Causes {
  readonly all: FieldCause[] = [];

  add(...causes: FieldCause[]): void {
    for (const c of causes) this.all.push(c);
  }

  private wrong(path: string, value: unknown, type: string): undefined {
    this.all.push(invalidValue(path, value, `must be of type ${type}`));
    return undefined;
  }

  /** An object field; undefined when absent or of another type. */
  obj(v: unknown, path: string): Obj | undefined {
    if (v === undefined || v === null) return undefined;
    return isObj(v) ? v : this.wrong(path, v, 'object');
  }

  /** A list field; [] when absent or of another type. */
  arr(v: unknown, path: string): unknown[] {
    if (v === undefined || v === null) return [];
    if (Array.isArray(v)) return v;
    this.wrong(path, v, 'array');
    return [];
  }

  /** A list of objects: entries of another type are reported and come back as {}. */
  objs(v: unknown, path: string): Obj[] {
    return this.arr(v, path).map((item, i) => this.obj(item, `${path}[${i}]`) ?? {});
  }

  /** A string field; undefined when absent or of another type. */
  str(v: unknown, path: string): string | undefined {
    if (v === undefined || v === null) return undefined;
    return typeof v === 'string' ? v : this.wrong(path, v, 'string');
  }

  /** A list of strings: entries of another type are reported and dropped. */
  strs(v: unknown, path: string): string[] {
    const out: string[] = [];
    this.arr(v, path).forEach((item, i) => {
      const s = this.str(item, `${path}[${i}]`);
      if (s !== undefined) out.push(s);
    });
    return out;
  }

  /** An integer field (int32/int64 in Go); undefined when absent or not an integer. */
  int(v: unknown, path: string): number | undefined {
    if (v === undefined || v === null) return undefined;
    return typeof v === 'number' && Number.isInteger(v) ? v : this.wrong(path, v, 'integer');
  }

  bool(v: unknown, path: string): boolean | undefined {
    if (v === undefined || v === null) return undefined;
    return typeof v === 'boolean' ? v : this.wrong(path, v, 'boolean');
  }

  /** An intstr.IntOrString: an integer or a string. */
  intOrString(v: unknown, path: string): number | string | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v))) return v;
    return this.wrong(path, v, 'integer or string');
  }
}

/** Go's map range order is random; kube's output for maps is therefore unordered. We use the body's order. */
export function entries(v: Obj | undefined): [string, unknown][] {
  return v ? Object.entries(v) : [];
}
