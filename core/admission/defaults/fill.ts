// Canonical layer admission: the one helper every defaulting module uses — set a field only when the
// client left it unset, as the generated SetDefaults_* functions do for nil pointers and empty strings.

export type Obj = Record<string, any>;

/** Sets each default whose field is absent (undefined, or null: a Go nil pointer decodes from null too). */
export function fill(target: Obj, defaults: Obj): void {
  for (const [k, v] of Object.entries(defaults)) {
    // Primitives as they are, objects as a JSON copy (defaults are plain JSON): structuredClone per field was a
    // serializer call for every defaulted field of every create (bench/profile.ts writes-64).
    if (target[k] === undefined || target[k] === null) target[k] = typeof v === 'object' && v !== null ? JSON.parse(JSON.stringify(v)) : v;
  }
}

/** Sets string fields that are absent or "", which a Go string field cannot tell apart. */
export function fillString(target: Obj, defaults: Record<string, string>): void {
  for (const [k, v] of Object.entries(defaults)) {
    if (target[k] === undefined || target[k] === null || target[k] === '') target[k] = v;
  }
}

export const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The objects of a list field, skipping anything that is not an object (validation reports those). */
export function objects(list: unknown): Obj[] {
  return Array.isArray(list) ? list.filter(isObject) : [];
}
