import { describe, expect, it } from 'vitest';
import { defaultCrd, validateCrd } from '../../../core/crd/validate-crd';
import { computeCrdStatus } from '../../../core/crd/crd-status';
import { RESOURCE_TYPES } from '../../../core/registry';
import type { Crd } from '../../../core/crd/crd-object';

function crd(mut: (c: any) => void = () => {}): Crd {
  const c: any = {
    metadata: { name: 'crontabs.stable.example.com' },
    spec: {
      group: 'stable.example.com', scope: 'Namespaced', names: { plural: 'crontabs', kind: 'CronTab' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } } }],
    },
  };
  mut(c);
  defaultCrd(c);
  return c;
}
const msgs = (c: Crd, old?: Crd) => validateCrd(c, old).map((e) => `${e.field}: ${e.message}`);

describe('CRD validation', () => {
  it('accepts a valid CRD and defaults its names', () => {
    const c = crd();
    expect(msgs(c)).toEqual([]);
    expect(c.spec.names).toEqual({ plural: 'crontabs', kind: 'CronTab', singular: 'crontab', listKind: 'CronTabList' });
    expect(c.spec.conversion).toEqual({ strategy: 'None' });
  });

  it('names kube errors', () => {
    expect(msgs(crd((c) => (c.metadata.name = 'x.stable.example.com')))).toEqual(['metadata.name: Invalid value: "x.stable.example.com": must be spec.names.plural+"."+spec.group']);
    expect(msgs(crd((c) => (c.spec.scope = 'Global')))).toEqual(['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"']);
    expect(msgs(crd((c) => (c.spec.names.listKind = 'CronTab')))).toEqual(['spec.names.listKind: Invalid value: "CronTab": kind and listKind may not be the same']);
    expect(msgs(crd((c) => (c.spec.versions[0].schema.openAPIV3Schema.type = 'string')))).toEqual(['spec.validation.openAPIV3Schema.type: Invalid value: "string": must be object at the root']);
    expect(msgs(crd((c) => (c.spec.versions[0].schema.openAPIV3Schema.properties.spec = { type: 'array' })))).toEqual(['spec.validation.openAPIV3Schema.properties[spec].items: Required value: must be specified']);
    expect(msgs(crd((c) => (c.spec.versions[0].schema.openAPIV3Schema.properties.spec.uniqueItems = true)))).toEqual(['spec.validation.openAPIV3Schema.properties[spec].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic']);
    expect(msgs(crd((c) => (c.spec.versions[0].subresources = { scale: { specReplicasPath: '.foo', statusReplicasPath: '.status.r' } })))).toEqual(['spec.subresources.scale.specReplicasPath: Invalid value: ".foo": should be a json path under .spec']);
    expect(msgs(crd((c) => (c.spec.versions[0].additionalPrinterColumns = [{ name: 'X', type: 'text', jsonPath: 'spec.x' }])))).toEqual([
      'spec.additionalPrinterColumns[0].type: Unsupported value: "text": supported values: "boolean", "date", "integer", "number", "string"',
      'spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec.x": must be a simple json path starting with .',
    ]);
  });

  it('keeps group and plural immutable, scope and kind once established', () => {
    const old = crd();
    old.status = { conditions: [{ type: 'Established', status: 'True' }] };
    expect(msgs(crd((c) => (c.spec.scope = 'Cluster')), old)).toEqual(['spec.scope: Invalid value: "Cluster": field is immutable']);
  });
});

describe('CRD status', () => {
  it('accepts names without conflict; refuses a kind in use in the group, and a built-in plural', () => {
    const a = crd();
    computeCrdStatus(a, undefined, [], RESOURCE_TYPES, 0);
    expect(a.status!.conditions!.map((c) => [c.type, c.status, c.reason])).toEqual([['NamesAccepted', 'True', 'NoConflicts'], ['Established', 'True', 'InitialNamesAccepted']]);
    expect(a.status!.storedVersions).toEqual(['v1']);
    const b = crd((c) => {
      c.metadata.name = 'others.stable.example.com';
      c.spec.names.plural = 'others';
      c.spec.names.singular = 'other';
    });
    computeCrdStatus(b, undefined, [a], RESOURCE_TYPES, 0);
    expect(b.status!.conditions![0]).toMatchObject({ status: 'False', reason: 'KindConflict', message: '"CronTab" is already in use' });
    const apps = crd((c) => {
      c.metadata.name = 'deployments.apps';
      c.spec.group = 'apps';
      c.spec.names = { plural: 'deployments', kind: 'MyDeployment' };
    });
    computeCrdStatus(apps, undefined, [], RESOURCE_TYPES, 0);
    expect(apps.status!.conditions![0]).toMatchObject({ status: 'False', reason: 'PluralConflict', message: '"deployments" is already in use' });
  });
});
