import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crdVersionView } from '../../../core/views/crd-version';
import { rewriteMembers } from '../../../core/views/json-members';
import { jsonInView, servedBy, viewBetween } from '../../../core/views/view';
import { EVENTS_V1, EVENTS_V1_VIEW } from '../../../core/views/events-v1';
import { lookupGroupResource, lookupType, setCustomTypes } from '../../../core/registry';
import { typesFromCrd } from '../../../core/crd/crd-types';
import type { Crd } from '../../../core/crd/crd-object';
import { opGrowth } from '../op-count';

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

describe('servedBy', () => {
  it('sends events.k8s.io/v1 to the core/v1 events store, a CRD version to its store, anything else as it is', () => {
    const served = servedBy(lookupType('events.k8s.io', 'v1', 'events')!);
    expect(served.type).toBe(lookupGroupResource('core/events'));
    expect(served.view).toBe(EVENTS_V1_VIEW);
    const beta = lookupType('stable.example.com', 'v1beta1', 'crontabs')!;
    expect(servedBy(beta).type).toBe(beta);
    expect(servedBy(beta).view?.apiVersion).toBe('stable.example.com/v1beta1');
    expect(servedBy(lookupType('stable.example.com', 'v1', 'crontabs')!).view).toBeUndefined();
    expect(servedBy(lookupGroupResource('core/pods')!).view).toBeUndefined();
  });

  it('refuses a view no store serves rather than answering in the wrong version', () => {
    expect(viewBetween('v1', undefined)).toBeUndefined();
    expect(viewBetween('apps/v1', 'apps/v1')).toBeUndefined();
    expect(viewBetween('v1', EVENTS_V1)).toBe(EVENTS_V1_VIEW);
    expect(() => viewBetween('v1', 'apps/v1')).toThrow('no view of v1 as apps/v1');
  });
});

describe('a CRD version over its storage version', () => {
  const view = crdVersionView('stable.example.com/v1', 'stable.example.com/v1beta1');
  const stored = { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'c' }, spec: { template: { apiVersion: 'stable.example.com/v1' } } };

  it('rewrites only the apiVersion of the object itself, in text and parsed', () => {
    expect(JSON.parse(view.json(JSON.stringify(stored)))).toEqual({ ...stored, apiVersion: 'stable.example.com/v1beta1' });
    expect(view.fromStorage(structuredClone(stored))).toEqual({ ...stored, apiVersion: 'stable.example.com/v1beta1' });
    const list = view.fromStorage({ kind: 'CronTabList', apiVersion: 'stable.example.com/v1', items: [structuredClone(stored)] }) as { apiVersion: string; items: { apiVersion: string }[] };
    expect([list.apiVersion, list.items[0].apiVersion]).toEqual(['stable.example.com/v1beta1', 'stable.example.com/v1beta1']);
    expect(view.toStorage({ apiVersion: 'stable.example.com/v1beta1', kind: 'CronTab' })).toEqual({ apiVersion: 'stable.example.com/v1', kind: 'CronTab' });
    // A body of another version is the store's to refuse.
    expect(view.toStorage({ apiVersion: 'stable.example.com/v2' })).toEqual({ apiVersion: 'stable.example.com/v2' });
    expect(jsonInView(lookupGroupResource('stable.example.com/crontabs')!, 'stable.example.com/v1beta1', JSON.stringify(stored)))
      .toBe(view.json(JSON.stringify(stored)));
  });

  it('leaves a frame of another version alone and rewrites a bookmark', () => {
    expect(view.frame('{"type":"BOOKMARK","object":{"kind":"CronTab","apiVersion":"stable.example.com/v1"}}\n'))
      .toBe('{"type":"BOOKMARK","object":{"kind":"CronTab","apiVersion":"stable.example.com/v1beta1"}}\n');
  });
});

describe('rewriteMembers', () => {
  const rename = { names: new Map([['"a"', '"b"']]), values: new Map([['"v"', ['"1"', '"2"']] as const]) };

  it.each([
    ['renames a top-level member', '{"a":1,"c":{"a":2}}', '{"b":1,"c":{"a":2}}'],
    ['replaces a value only when it is exactly the one given', '{"v":"1","w":"1","x":{"v":"1"}}', '{"v":"2","w":"1","x":{"v":"1"}}'],
    ['skips strings holding quotes, braces and escapes', '{"s":"\\"a\\":{[","a":"}"}', '{"s":"\\"a\\":{[","b":"}"}'],
    ['leaves a value that is not a string', '{"v":["1"],"a":null}', '{"v":["1"],"b":null}'],
    ['leaves an array or a non-JSON text', '["a","v"]', '["a","v"]'],
    ['leaves an unterminated string', '{"a":"x', '{"a":"x'],
  ])('%s', (_name, input, output) => {
    expect(rewriteMembers(input, rename)).toBe(output);
  });

  it('takes time linear in the text, however deep or wide', () => {
    const wide = (n: number) => {
      const text = JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i % 2 ? '1' : { a: 'x' }])));
      return () => void rewriteMembers(text, rename);
    };
    const deep = (n: number) => {
      const text = `{"a":${'['.repeat(n)}${']'.repeat(n)},"v":"1"}`;
      return () => void rewriteMembers(text, rename);
    };
    expect(opGrowth(wide, 2000)).toBeLessThan(5);
    expect(opGrowth(deep, 2000)).toBeLessThan(5);
  });
});

describe('autoscaling/v1 HorizontalPodAutoscaler view', () => {
  it('serves autoscaling/v1 from the autoscaling/v2 store, and patches it in its v1 form', async () => {
    const { HPA_V1_VIEW } = await import('../../../core/views/hpa-v1');
    const served = servedBy(lookupType('autoscaling', 'v1', 'horizontalpodautoscalers')!);
    expect(served.type).toBe(lookupGroupResource('autoscaling/horizontalpodautoscalers'));
    expect(served.view).toBe(HPA_V1_VIEW);
    expect(viewBetween('autoscaling/v2', 'autoscaling/v1')?.patchInView).toBe(true);
    const v1 = { apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'h' }, spec: { maxReplicas: 3, targetCPUUtilizationPercentage: 50 } };
    const stored = HPA_V1_VIEW.toStorage(v1) as { apiVersion: string; spec: { metrics: unknown[] } };
    expect(stored.apiVersion).toBe('autoscaling/v2');
    expect(stored.spec.metrics).toEqual([{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }]);
    expect((HPA_V1_VIEW.fromStorage(stored) as typeof v1).spec.targetCPUUtilizationPercentage).toBe(50);
    expect(JSON.parse(HPA_V1_VIEW.json(JSON.stringify(stored))).spec.targetCPUUtilizationPercentage).toBe(50);
  });
});
