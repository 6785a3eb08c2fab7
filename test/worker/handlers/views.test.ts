// Requests through a view (core/views): events.k8s.io/v1 over the core/v1 events store, a CRD's served version over
// its storage version. The store converts on its one path; the front door neither parses nor re-serializes.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { resourceApp } from '../resource-app';
import { setCustomTypes } from '../../../core/registry';
import { typesFromCrd } from '../../../core/crd/crd-types';
import type { Crd } from '../../../core/crd/crd-object';

const NOW = '2026-01-01T00:00:00.000000Z';
const event = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name }, eventTime: NOW, reason: 'Checked', note: 'checked by a test',
  type: 'Normal', action: 'Check', reportingController: 'example.com/tester', reportingInstance: 'tester-1',
  regarding: { kind: 'Deployment', name: 'web', namespace: 'ns', apiVersion: 'apps/v1' }, ...extra,
});

function eventsApp() {
  const app = resourceApp();
  app.storeOf('core/namespaces').seed({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } });
  return app;
}

/** JSON.parse and JSON.stringify calls over `fn` whose text is at least `min` characters (an object, not a small piece). */
async function jsonWork(min: number, fn: () => Promise<void>): Promise<{ parses: number; serializations: number }> {
  const parse = vi.spyOn(JSON, 'parse');
  const stringify = vi.spyOn(JSON, 'stringify');
  try {
    await fn();
    return {
      parses: parse.mock.calls.filter(([text]) => String(text).length >= min).length,
      serializations: stringify.mock.results.filter((r) => r.type === 'return' && String(r.value).length >= min).length,
    };
  } finally {
    parse.mockRestore();
    stringify.mockRestore();
  }
}

afterEach(() => vi.restoreAllMocks());

describe('events.k8s.io/v1', () => {
  it('stores a create as core/v1 and answers it as events.k8s.io/v1', async () => {
    const { request, storeOf } = eventsApp();
    const res = await request('POST', '/apis/events.k8s.io/v1/namespaces/ns/events', event('e1'));
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ apiVersion: 'events.k8s.io/v1', note: 'checked by a test', regarding: { name: 'web' }, reportingController: 'example.com/tester' });
    expect(JSON.parse(storeOf('core/events').state.get('ns/e1')!.json)).toMatchObject({ apiVersion: 'v1', message: 'checked by a test', involvedObject: { name: 'web' } });
  });

  it('validates a create strictly, naming the events.k8s.io kind, and stores nothing', async () => {
    const { request, storeOf } = eventsApp();
    const res = await request('POST', '/apis/events.k8s.io/v1/namespaces/ns/events', event('bad', { eventTime: undefined, deprecatedCount: 2 }));
    expect(res.status).toBe(422);
    const status = (await res.json()) as { message: string; details: unknown };
    expect(status.message).toBe('Event.events.k8s.io "bad" is invalid: [eventTime: Required value, count: Invalid value: "": needs to be unset]');
    expect(status.details).toMatchObject({ name: 'bad', group: 'events.k8s.io', kind: 'Event' });
    expect(storeOf('core/events').state.size).toBe(0);
    // Through core/v1 the same Event is legacy-valid.
    expect((await request('POST', '/api/v1/namespaces/ns/events', { metadata: { name: 'ok' }, involvedObject: { namespace: 'ns' }, count: 2 })).status).toBe(201);
  });

  it('parses a create once and serializes it three times: the size check, the stored row and the answer', async () => {
    const { request } = eventsApp();
    const body = JSON.stringify(event('e1', { note: 'x'.repeat(400) }));
    expect(await jsonWork(400, async () => {
      expect((await request('POST', '/apis/events.k8s.io/v1/namespaces/ns/events', body)).status).toBe(201);
    })).toEqual({ parses: 1, serializations: 3 });
  });

  it('reads and lists through the view without parsing or re-serializing the stored objects', async () => {
    const { request } = eventsApp();
    for (let i = 0; i < 20; i++) await request('POST', '/apis/events.k8s.io/v1/namespaces/ns/events', event(`e${i}`, { note: 'x'.repeat(400) }));
    let list = '';
    let one = '';
    expect(await jsonWork(400, async () => {
      list = await (await request('GET', '/apis/events.k8s.io/v1/namespaces/ns/events')).text();
      one = await (await request('GET', '/apis/events.k8s.io/v1/namespaces/ns/events/e3')).text();
    })).toEqual({ parses: 0, serializations: 0 });
    const parsed = JSON.parse(list) as { kind: string; apiVersion: string; items: { apiVersion: string; note: string; message?: string }[] };
    expect([parsed.kind, parsed.apiVersion, parsed.items.length]).toEqual(['EventList', 'events.k8s.io/v1', 20]);
    expect(parsed.items.every((i) => i.apiVersion === 'events.k8s.io/v1' && i.note === 'x'.repeat(400) && i.message === undefined)).toBe(true);
    expect(JSON.parse(one)).toMatchObject({ apiVersion: 'events.k8s.io/v1', metadata: { name: 'e3' }, regarding: { name: 'web' } });
  });

  it("answers a Table with the stored Event's cells and the row's object in events.k8s.io/v1", async () => {
    const { request } = eventsApp();
    await request('POST', '/apis/events.k8s.io/v1/namespaces/ns/events', event('e1'));
    const accept = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };
    for (const path of ['/apis/events.k8s.io/v1/namespaces/ns/events/e1', '/apis/events.k8s.io/v1/namespaces/ns/events']) {
      const table = (await (await request('GET', `${path}?includeObject=Object`, undefined, accept)).json()) as { kind: string; rows: { cells: unknown[]; object: Record<string, unknown> }[] };
      expect(table.kind).toBe('Table');
      expect(table.rows[0].cells).toContain('checked by a test');
      expect(table.rows[0].object).toMatchObject({ apiVersion: 'events.k8s.io/v1', note: 'checked by a test' });
    }
  });

  it('renames merge patch fields and answers in the view', async () => {
    const { request, storeOf } = eventsApp();
    await request('POST', '/apis/events.k8s.io/v1/namespaces/ns/events', event('e1'));
    const res = await request('PATCH', '/apis/events.k8s.io/v1/namespaces/ns/events/e1', { note: 'again' }, { 'content-type': 'application/merge-patch+json' });
    expect(((await res.json()) as { note: string }).note).toBe('again');
    expect(JSON.parse(storeOf('core/events').state.get('ns/e1')!.json).message).toBe('again');
  });
});

describe("a CRD's served version other than the storage one", () => {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'crontabs.stable.example.com' },
    spec: {
      group: 'stable.example.com', scope: 'Namespaced', names: { plural: 'crontabs', kind: 'CronTab' },
      versions: ['v1', 'v1beta1'].map((name) => ({ name, served: true, storage: name === 'v1', schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } })),
    },
    status: { acceptedNames: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList' }, conditions: [{ type: 'Established', status: 'True' }] },
  } as unknown as Crd;
  beforeAll(() => setCustomTypes(typesFromCrd(crd)));
  afterAll(() => setCustomTypes([]));

  it('stores in the storage version and answers, lists and reads in the requested one', async () => {
    const { request, storeOf } = eventsApp();
    const base = '/apis/stable.example.com/v1beta1/namespaces/ns/crontabs';
    const made = await request('POST', base, { apiVersion: 'stable.example.com/v1beta1', kind: 'CronTab', metadata: { name: 'c' }, spec: { x: 1 } });
    expect(made.status).toBe(201);
    expect(((await made.json()) as { apiVersion: string }).apiVersion).toBe('stable.example.com/v1beta1');
    expect(JSON.parse(storeOf('stable.example.com/crontabs').state.get('ns/c')!.json).apiVersion).toBe('stable.example.com/v1');
    const list = (await (await request('GET', base)).json()) as { apiVersion: string; items: { apiVersion: string }[] };
    expect([list.apiVersion, list.items[0].apiVersion]).toEqual(['stable.example.com/v1beta1', 'stable.example.com/v1beta1']);
    expect(((await (await request('GET', `${base}/c`)).json()) as { apiVersion: string }).apiVersion).toBe('stable.example.com/v1beta1');
    expect(((await (await request('GET', '/apis/stable.example.com/v1/namespaces/ns/crontabs/c')).json()) as { apiVersion: string }).apiVersion).toBe('stable.example.com/v1');
  });
});
