// The Durable Objects' RPC preamble: one type per object, custom types followed as their CRD changes, every
// error answered as a Status.
import { afterEach, describe, expect, it } from 'vitest';
import { ServedType } from '../../durable-objects/served-type';
import { lookupGroupResource, setCustomTypes, type ResourceType } from '../../core/registry';
import { badRequest, StatusError } from '../../core/status';

const PODS = lookupGroupResource('core/pods')!;
const widgets = (columns: number): ResourceType => ({ ...PODS, group: 'example.com', resource: 'widgets', kind: 'Widget', custom: { columns } as never });

afterEach(() => setCustomTypes([]));

function served() {
  const seen: string[] = [];
  const type = new ServedType({}, { first: (t, gr) => seen.push(`first ${gr} ${t.kind}`), retype: (t) => seen.push(`retype ${t.kind}`) });
  return { type, seen };
}

describe('ServedType', () => {
  it('loads the type once, and follows a custom type to its new definition', async () => {
    const { type, seen } = served();
    setCustomTypes([widgets(1)]);
    await type.know('example.com/widgets');
    await type.know('example.com/widgets');
    setCustomTypes([widgets(2)]);
    expect(type.resolve('example.com/widgets')).toBe(lookupGroupResource('example.com/widgets'));
    expect(seen).toEqual(['first example.com/widgets Widget', 'retype Widget']);
  });

  it('answers a StatusError with its Status, anything else with a 500 that does not start with "Error: "', async () => {
    const { type } = served();
    expect(await type.result('core/pods', undefined, () => {
      throw new StatusError(badRequest('no'));
    })).toMatchObject({ ok: false, status: { code: 400, message: 'no' } });
    const bug = await type.result('core/pods', undefined, () => {
      throw new Error('boom');
    });
    expect(bug).toMatchObject({ ok: false, status: { code: 500, reason: 'InternalError', message: 'Internal error occurred: boom' } });
    const unknown = await served().type.response('example.com/nothing', undefined, () => new Response('never'));
    expect(unknown.status).toBe(500);
    expect(((await unknown.json()) as { message: string }).message).toBe('Internal error occurred: unknown resource type example.com/nothing');
    expect(await type.result('core/pods', undefined, (t) => t.kind)).toEqual({ ok: true, value: 'Pod' });
  });
});
