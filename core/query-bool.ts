// Front door: a boolean query parameter read as apimachinery reads it (pkg/runtime/conversion.go
// Convert_Slice_string_To_bool): absent is false; "0" and any casing of "false" are false; every other
// value is true — "", "1", "True" (what the Python client sends), "yes". The first occurrence counts.

export function parseQueryBool(value: string | null | undefined): boolean {
  if (value === null || value === undefined) return false;
  return !(value === '0' || value.toLowerCase() === 'false');
}

export function queryBool(query: URLSearchParams, name: string): boolean {
  return parseQueryBool(query.get(name));
}

/** A `*bool` parameter (sendInitialEvents): undefined when absent. */
export function optionalQueryBool(query: URLSearchParams, name: string): boolean | undefined {
  return query.has(name) ? queryBool(query, name) : undefined;
}
