// Measurement: what a V8 heap snapshot (.heapsnapshot JSON) holds, grouped by constructor (objects,
// closures, native wrappers) or by kind (strings, arrays, code...), and the difference between two: which
// groups grew when the watchers were opened, and by how much.

export interface HeapGroup {
  name: string; // "object WatchHub", "closure send", "(string)", ...
  count: number;
  bytes: number; // self sizes summed
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: unknown[] } };
  nodes: number[];
  strings: string[];
}

/** Self sizes summed per group; each node counted once. */
export function groupHeap(json: string): Map<string, HeapGroup> {
  const s = JSON.parse(json) as Snapshot;
  const fields = s.snapshot.meta.node_fields;
  const types = s.snapshot.meta.node_types[0] as string[];
  const stride = fields.length;
  const iType = fields.indexOf('type');
  const iName = fields.indexOf('name');
  const iSize = fields.indexOf('self_size');
  const out = new Map<string, HeapGroup>();
  for (let i = 0; i < s.nodes.length; i += stride) {
    const type = types[s.nodes[i + iType]];
    const named = type === 'object' || type === 'closure' || type === 'native';
    const name = named ? `${type} ${s.strings[s.nodes[i + iName]]}` : `(${type})`;
    const g = out.get(name) ?? { name, count: 0, bytes: 0 };
    g.count++;
    g.bytes += s.nodes[i + iSize];
    out.set(name, g);
  }
  return out;
}

/** Groups that grew from `before` to `after`, largest growth first. */
export function heapGrowth(before: Map<string, HeapGroup>, after: Map<string, HeapGroup>, top = 12): HeapGroup[] {
  const out: HeapGroup[] = [];
  for (const [name, a] of after) {
    const b = before.get(name);
    const bytes = a.bytes - (b?.bytes ?? 0);
    if (bytes > 0) out.push({ name, count: a.count - (b?.count ?? 0), bytes });
  }
  return out.sort((x, y) => y.bytes - x.bytes).slice(0, top);
}
