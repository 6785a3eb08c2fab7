// One LIST suite (apiserver's storage/testing RunTestList idea), run against both shapes of state a LIST is
// served from: the canonical store's (with its log, for exact reads and continued pages) and a replica's (the
// latest state only, consistent once it has reached the store's revision).
import { describe, expect, it } from 'vitest';
import { serveList, type ListSource } from '../../../core/list/serve-list';
import { ObjectState, type StateEntry } from '../../../core/object-state';
import { objectFields } from '../../../core/selectors/object-fields';
import { lookupGroupResource } from '../../../core/registry';
import { StatusError, type Status } from '../../../core/status';

const CONFIGMAPS = lookupGroupResource('core/configmaps')!;

interface Change {
  revision: number;
  key: string;
  value: string | null; // null: deleted
  prev: string | null;
}

/** A store's worth of writes: the log, and the state after each. */
class Writes {
  readonly log: Change[] = [];
  readonly current = new Map<string, string>();
  revision = 0;

  put(namespace: string, name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}): this {
    const key = `${namespace}/${name}`;
    const object = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, labels, resourceVersion: String(this.revision + 1) }, data };
    return this.change(key, JSON.stringify(object));
  }

  remove(namespace: string, name: string): this {
    return this.change(`${namespace}/${name}`, null);
  }

  private change(key: string, value: string | null): this {
    this.revision++;
    this.log.push({ revision: this.revision, key, value, prev: this.current.get(key) ?? null });
    if (value === null) this.current.delete(key);
    else this.current.set(key, value);
    return this;
  }
}

function entry(key: string, json: string, revision = 0): StateEntry {
  const obj = JSON.parse(json);
  return { key, revision, json, labels: obj.metadata?.labels ?? {}, fields: objectFields(CONFIGMAPS, obj) };
}

function stateOf(w: Writes): ObjectState {
  const state = new ObjectState();
  for (const [key, json] of w.current) state.set(entry(key, json));
  return state;
}

interface Options {
  compacted?: number; // the store's
  storeHead?: number; // a replica: the store's newest revision (it has reached w.revision)
}

const sources: { name: string; history: boolean; newSource: (w: Writes, o?: Options) => ListSource }[] = [
  {
    name: 'the canonical store',
    history: true,
    newSource: (w, o = {}) => ({
      type: CONFIGMAPS, state: stateOf(w), revision: () => w.revision, compacted: () => o.compacted ?? 0,
      reached: async (r) => r <= w.revision,
      valuesBefore: (revision, keep) => {
        const values = new Map<string, string | null>();
        for (const c of w.log) if (c.revision > revision && !values.has(c.key) && keep(c.key)) values.set(c.key, c.prev);
        return values;
      },
      entry: (key, json) => entry(key, json),
      onRenderError: () => undefined,
    }),
  },
  {
    name: 'a watch-cache replica',
    history: false,
    newSource: (w, o = {}) => ({
      type: CONFIGMAPS, state: stateOf(w), revision: () => w.revision, compacted: () => o.compacted ?? 0,
      reached: async (r) => r <= w.revision,
      consistentRevision: async () => o.storeHead ?? w.revision,
      entry: (key, json) => entry(key, json),
      onRenderError: () => undefined,
    }),
  },
];

const list = async (source: ListSource, query: string, namespace = 'ns') => {
  const body = await serveList(source, { namespace, query, format: { as: 'List' } }, 0);
  return body === undefined ? undefined : JSON.parse(body);
};
const names = (l: { items: { metadata: { name: string } }[] }) => l.items.map((i) => i.metadata.name);

async function statusOf(p: Promise<unknown>): Promise<Status> {
  try {
    await p;
  } catch (e) {
    if (e instanceof StatusError) return e.status;
    throw e;
  }
  throw new Error('expected a Status error');
}

describe.each(sources)('serveList from $name', ({ newSource, history }) => {
  const writes = () => new Writes().put('ns', 'c', { app: 'x' }).put('ns', 'a', { app: 'y' }).put('other', 'b').put('ns', 'b', { app: 'x' });

  it('lists one namespace in key order at the revision the source holds', async () => {
    const l = await list(newSource(writes()), '');
    expect(l).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '4' } });
    expect(names(l)).toEqual(['a', 'b', 'c']);
    expect(names(await list(newSource(writes()), '', ''))).toEqual(['a', 'b', 'c', 'b']);
  });

  it.each([
    { query: '?labelSelector=app%3Dx', want: ['b', 'c'] },
    { query: '?labelSelector=app%20notin%20(x)', want: ['a'] },
    { query: '?fieldSelector=metadata.name%3Da', want: ['a'] },
  ])('filters with $query', async ({ query, want }) => {
    expect(names(await list(newSource(writes()), query))).toEqual(want);
  });

  it('pages with a limit: a continue token, and remainingItemCount only without selectors', async () => {
    const first = await list(newSource(writes()), '?limit=2&resourceVersion=');
    expect(names(first)).toEqual(['a', 'b']);
    expect(first.metadata).toMatchObject({ remainingItemCount: 1 });
    expect(first.metadata.continue).toBeTruthy();
    const filtered = await list(newSource(writes()), '?limit=1&labelSelector=app%3Dx');
    expect(filtered.metadata.remainingItemCount).toBeUndefined();
    expect(filtered.metadata.continue).toBeTruthy();
  });

  it('ignores the limit for resourceVersion=0, as the watch cache does', async () => {
    expect(names(await list(newSource(writes()), '?limit=1&resourceVersion=0'))).toEqual(['a', 'b', 'c']);
  });

  it('answers 504 Too large resource version for a NotOlderThan read past what it holds', async () => {
    const s = await statusOf(list(newSource(writes()), '?resourceVersion=9&resourceVersionMatch=NotOlderThan'));
    expect(s).toMatchObject({ code: 504, reason: 'Timeout', message: 'Timeout: Too large resource version: 9, current: 4' });
  });

  it('answers 400 for a bad selector, with apimachinery text', async () => {
    const s = await statusOf(list(newSource(writes()), '?labelSelector=a%3D%3D%3Db'));
    expect(s.code).toBe(400);
  });

  it('renders a Table when asked', async () => {
    const body = await serveList(newSource(writes()), { namespace: 'ns', query: '', format: { as: 'Table', includeObject: 'None' } }, 0);
    const table = JSON.parse(body!);
    expect(table).toMatchObject({ kind: 'Table', metadata: { resourceVersion: '4' } });
    expect(table.rows.map((r: { cells: unknown[] }) => r.cells[0])).toEqual(['a', 'b', 'c']);
  });

  if (history) {
    it('continues a paged list at its first page\'s revision, whatever was written since', async () => {
      const w = writes();
      const first = await list(newSource(w), '?limit=2');
      w.remove('ns', 'c').put('ns', 'bb').put('ns', 'd');
      const rest = await list(newSource(w), `?limit=2&continue=${encodeURIComponent(first.metadata.continue)}`);
      expect(names(rest)).toEqual(['c']);
      expect(rest.metadata.resourceVersion).toBe('4');
    });

    it('reads the exact state at an older revision, and 410 once it is compacted', async () => {
      const w = writes().remove('ns', 'a').put('ns', 'z');
      expect(names(await list(newSource(w), '?resourceVersion=2&resourceVersionMatch=Exact'))).toEqual(['a', 'c']);
      const s = await statusOf(list(newSource(w, { compacted: 3 }), '?resourceVersion=2&resourceVersionMatch=Exact'));
      expect(s).toMatchObject({ code: 410, reason: 'Expired' });
    });
  } else {
    it('serves no exact read (the front door sends those to the store)', async () => {
      await expect(list(newSource(writes()), '?resourceVersion=2&resourceVersionMatch=Exact')).rejects.toThrow('only lists of the latest state');
    });

    it('serves a consistent read only once it has reached the store\'s revision', async () => {
      expect(await list(newSource(writes(), { storeHead: 5 }), '')).toBeUndefined();
      expect(names(await list(newSource(writes(), { storeHead: 4 }), ''))).toEqual(['a', 'b', 'c']);
      expect(names(await list(newSource(writes(), { storeHead: 5 }), '?resourceVersion=0'))).toEqual(['a', 'b', 'c']);
    });
  }
});
