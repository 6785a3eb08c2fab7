// Accept negotiation as kube-apiserver's: q order, the first servable clause wins, 406 otherwise.
import { describe, expect, it } from 'vitest';
import { listFormat, negotiateOutput, negotiateWatch } from '../../worker/negotiation';
import { statusOf } from '../core/status-of';

describe('negotiateOutput', () => {
  it.each([
    [undefined, 'json', false],
    ['', 'json', false],
    ['application/json', 'json', false],
    ['application/yaml', 'yaml', false],
    ['*/*', 'json', false],
    ['application/*', 'json', false],
    ['application/vnd.kubernetes.protobuf,application/json', 'protobuf', false],
    ['application/vnd.kubernetes.protobuf', 'protobuf', false],
    ['application/json;q=0.9, application/vnd.kubernetes.protobuf', 'protobuf', false],
    ['application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, application/json;as=Table;v=v1;g=meta.k8s.io', 'json', true],
    ['application/json;q=0.5, application/yaml', 'yaml', false],
    ['application/json;as=Table;v=v1;g=meta.k8s.io,application/json', 'json', true],
    ['application/yaml;as=Table;v=v1;g=meta.k8s.io', 'yaml', true],
    ['application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/yaml', 'yaml', false],
  ])('%j → %s (table %s)', (accept, media, table) => {
    expect(negotiateOutput(accept)).toEqual({ media, table });
  });

  it.each(['text/html', 'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io', 'application/json;as=Widget;g=x;v=v1'])('%j → 406', (accept) => {
    expect(statusOf(() => negotiateOutput(accept))).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
      reason: 'NotAcceptable', code: 406,
    });
  });

  it('listFormat carries includeObject for Tables', () => {
    expect(listFormat('application/json;as=Table;v=v1;g=meta.k8s.io', 'Object')).toEqual({ as: 'Table', includeObject: 'Object' });
    expect(listFormat('application/yaml', undefined)).toEqual({ as: 'List' });
  });
});

describe('negotiateWatch', () => {
  it('streams JSON, including for kubectl get -w Tables', () => {
    expect(negotiateWatch('application/json;as=Table;v=v1;g=meta.k8s.io,application/json')).toEqual({ table: true });
    expect(negotiateWatch('application/vnd.kubernetes.protobuf, application/json')).toEqual({ table: false });
    expect(negotiateWatch(undefined)).toEqual({ table: false });
    expect(statusOf(() => negotiateWatch('application/vnd.kubernetes.protobuf')).code).toBe(406);
  });

  it('refuses a client that prefers YAML, which has no stream framing', () => {
    const s = statusOf(() => negotiateWatch('application/yaml, application/json'));
    expect(s).toMatchObject({ code: 406, message: 'only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch' });
  });
});
