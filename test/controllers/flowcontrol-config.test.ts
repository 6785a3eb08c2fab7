// The API Priority and Fairness configuration controller with fakes: kube-apiserver's Dangling condition on
// FlowSchemas (kube's reasons and messages, written only on a change, at most 6 times a minute per schema, reacting
// to levels appearing and going), and the producer's periodic ensure of the bootstrap objects.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../client/types';
import { ENSURE_KEY, ENSURE_PERIOD_MS, FLOW_SCHEMAS, FlowControlConfigController } from '../../controllers/flowcontrol-config';
import {
  AUTOUPDATE_SPEC_ANNOTATION, MANDATORY_FLOW_SCHEMAS, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS,
} from '../../core/flowcontrol/bootstrap';
import { danglingUpdate, unwantedBootstrapObject } from '../../core/flowcontrol/status';
import { FakeApi, FakeClock, FakeInformer } from './fakes';

const schema = (name: string, level: string, status?: object): KubeObject =>
  ({ apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name, resourceVersion: '1' }, spec: { priorityLevelConfiguration: { name: level } }, ...(status ? { status } : {}) }) as KubeObject;
const level = (name: string): KubeObject =>
  ({ apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'PriorityLevelConfiguration', metadata: { name, resourceVersion: '1' }, spec: { type: 'Limited', limited: {} } }) as KubeObject;

function setup() {
  const clock = new FakeClock();
  const schemas = new FakeInformer();
  const levels = new FakeInformer();
  const api = new FakeApi();
  const c = new FlowControlConfigController(api, schemas, levels, clock);
  const addSchema = (o: KubeObject) => {
    api.put(FLOW_SCHEMAS, o);
    schemas.add(o);
  };
  return { clock, schemas, levels, api, c, addSchema };
}

describe('Dangling condition', () => {
  it("is kube's True/NotFound for a missing level and False/Found for an existing one, unchanged when already right", () => {
    const now = new Date('2026-01-01T00:00:00.123Z');
    const missing = danglingUpdate(schema('a', 'nope'), () => false, now);
    expect(missing).toEqual({
      type: 'Dangling', status: 'True', reason: 'NotFound', lastTransitionTime: '2026-01-01T00:00:00Z',
      message: 'This FlowSchema references the PriorityLevelConfiguration object named "nope" but there is no such object',
    });
    const found = danglingUpdate(schema('a', 'there'), () => true, now)!;
    expect(found).toMatchObject({ status: 'False', reason: 'Found', message: 'This FlowSchema references the PriorityLevelConfiguration object named "there" and it exists' });
    expect(danglingUpdate(schema('a', 'there', { conditions: [found] }), () => true, now)).toBeUndefined();
  });

  it("is applied to the status subresource as kube's consumer applies it (its field manager, force), following the level coming and going", async () => {
    const { api, c, addSchema, levels } = setup();
    addSchema(schema('team', 'team-level', { conditions: [{ type: 'Other', status: 'True' }] }));
    await c.sync('team');
    const first = api.writes('patch')[0]!;
    expect(first).toMatchObject({
      resource: 'flowschemas', name: 'team', subresource: 'status', patchOptions: { fieldManager: 'api-priority-and-fairness-config-consumer-v1', force: true },
    });
    // Only the one condition (a map list keyed by type: the apply leaves the others to their managers).
    expect(first.body).toEqual({
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema', metadata: { name: 'team' },
      status: { conditions: [expect.objectContaining({ type: 'Dangling', status: 'True', reason: 'NotFound' })] },
    });
    // The level appears: the schema naming it is queued (and only it).
    addSchema(schema('unrelated', 'elsewhere'));
    while (c.queue.len() > 0) c.queue.done((await c.queue.get())!);
    levels.add(level('team-level'));
    expect(c.queue.len()).toBe(1);
    await c.sync('team');
    expect(api.writes('patch').at(-1)!.body).toMatchObject({ status: { conditions: [{ type: 'Dangling', status: 'False', reason: 'Found' }] } });
  });

  it('writes a schema at most 6 times a minute, then waits', async () => {
    const { api, c, schemas, clock } = setup();
    for (let i = 0; i < 8; i++) {
      // Another writer keeps putting a wrong condition back.
      schemas.add(schema('fought', 'gone', { conditions: [{ type: 'Dangling', status: 'False', reason: 'Found', message: 'x' }] }));
      await c.sync('fought');
      clock.advance(1000);
    }
    expect(api.writes('patch')).toHaveLength(6);
  });
});

describe('bootstrap ensure', () => {
  it('restores a deleted mandatory level, recreates a missing suggested schema, and deletes stale auto-updated objects', async () => {
    const { api, c, schemas, levels, clock } = setup();
    const stored = (o: object) => ({ ...structuredClone(o), metadata: { ...(o as KubeObject).metadata, resourceVersion: '5' } }) as KubeObject;
    for (const pl of [...MANDATORY_PRIORITY_LEVELS, ...SUGGESTED_PRIORITY_LEVELS]) if (pl.metadata.name !== 'catch-all') levels.add(stored(pl));
    for (const fs of [...MANDATORY_FLOW_SCHEMAS, ...SUGGESTED_FLOW_SCHEMAS]) if (fs.metadata.name !== 'probes') schemas.add(stored(fs));
    const edited = stored(SUGGESTED_PRIORITY_LEVELS.find((p) => p.metadata.name === 'workload-low')!);
    (edited as unknown as { spec: { limited: { nominalConcurrencyShares: number } } }).spec.limited.nominalConcurrencyShares = 7;
    levels.add(edited); // still marked auto-update: brought back
    levels.add({ ...level('retired'), metadata: { name: 'retired', resourceVersion: '9', annotations: { [AUTOUPDATE_SPEC_ANNOTATION]: 'true' } } } as KubeObject);
    levels.add({ ...level('mine'), metadata: { name: 'mine', resourceVersion: '9' } } as KubeObject);
    await c.sync(ENSURE_KEY);
    const writes = api.writes().map((w) => `${w.verb} ${w.resource}/${w.name}`);
    expect(writes.sort()).toEqual([
      'create flowschemas/probes', 'create prioritylevelconfigurations/catch-all', 'delete prioritylevelconfigurations/retired',
      'update prioritylevelconfigurations/workload-low',
    ]);
    expect(api.writes('delete')[0]!.options).toEqual({ preconditions: { resourceVersion: '9' } });
    expect((api.writes('update')[0]!.body as { spec: { limited: { nominalConcurrencyShares: number } } }).spec.limited.nominalConcurrencyShares).toBe(100);
    // Again a minute later.
    while (c.queue.len() > 0) c.queue.done((await c.queue.get())!); // the schemas' status syncs
    clock.advance(ENSURE_PERIOD_MS - 1);
    expect(c.queue.len()).toBe(0);
    clock.advance(1);
    expect(await c.queue.get()).toBe(ENSURE_KEY);
    c.stop();
  });

  it("deletes only objects marked true in strconv.ParseBool's spellings", () => {
    const names = new Set(['exempt']);
    const with_ = (name: string, v?: string) => ({ metadata: { name, annotations: v === undefined ? {} : { [AUTOUPDATE_SPEC_ANNOTATION]: v } } });
    expect(unwantedBootstrapObject(with_('old', 'true'), names)).toBe(true);
    expect(unwantedBootstrapObject(with_('old', 'T'), names)).toBe(true);
    expect(unwantedBootstrapObject(with_('old', 'false'), names)).toBe(false);
    expect(unwantedBootstrapObject(with_('old', 'yes'), names)).toBe(false);
    expect(unwantedBootstrapObject(with_('old'), names)).toBe(false);
    expect(unwantedBootstrapObject(with_('exempt', 'true'), names)).toBe(false);
  });
});
