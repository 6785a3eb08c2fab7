// Test helper: the store as executeWrite sees it (WriteStore), in memory. Objects are cloned in and out as the real
// store serializes them; every commit takes the next revision and is recorded.
import type { EventType, WriteStore } from '../../core/writes';
import type { KubeObject } from '../../core/object-meta';

export function memoryStore() {
  const objects = new Map<string, KubeObject>();
  const events: { type: EventType; key: string; rv: number }[] = [];
  let rv = 0;
  const store: WriteStore = {
    get: (key) => (objects.has(key) ? structuredClone(objects.get(key)!) : undefined),
    objects: (ns) => [...objects.entries()].filter(([k]) => !ns || k.startsWith(`${ns}/`)).map(([, o]) => structuredClone(o)),
    commit: (type, key, object) => {
      rv += 1;
      object.metadata.resourceVersion = String(rv);
      if (type === 'DELETED') objects.delete(key);
      else objects.set(key, structuredClone(object));
      events.push({ type, key, rv });
      return object;
    },
  };
  return { store, objects, events, types: () => events.map((e) => e.type), commits: () => events.length };
}
