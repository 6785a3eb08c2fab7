// The schema walker's decoding: Go's wording for wrong types at depth, special types, null, unknown
// fields under each fieldValidation, pruning, preserve-unknown-fields, and real objects passing unchanged.
import { describe, expect, it } from 'vitest';
import { kindNode } from '../../../core/schema/compile';
import { decodeTyped } from '../../../core/schema/decode';
import { fromOpenAPIV3 } from '../../../core/schema/node';
import { deployment, job, pod, statefulSet } from './fixtures';

const node = (group: string, kind: string, version = 'v1') => {
  const n = kindNode(group, version, kind);
  if (!n) throw new Error(`no schema for ${kind}`);
  return n;
};
const POD = node('', 'Pod');

function decodeError(kind: ReturnType<typeof node>, value: unknown): string {
  try {
    decodeTyped(kind, value, true);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected a decoding error');
}

describe('decodeTyped: wrong JSON types', () => {
  it.each([
    // each JSON type class where another is expected, at depth
    ['a number for a string', { spec: { containers: [{ name: 5 }] } }, 'json: cannot unmarshal number into Go struct field Container.spec.containers.name of type string'],
    ['a string for an int32', { spec: { containers: [{ ports: [{ containerPort: '80' }] }] } },
      'json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32'],
    ['a string for an int64', { spec: { activeDeadlineSeconds: '5' } }, 'json: cannot unmarshal string into Go struct field PodSpec.spec.activeDeadlineSeconds of type int64'],
    ['a string for a bool', { spec: { hostNetwork: 'true' } }, 'json: cannot unmarshal string into Go struct field PodSpec.spec.hostNetwork of type bool'],
    ['an object for a list', { spec: { containers: { name: 'a' } } }, 'json: cannot unmarshal object into Go struct field PodSpec.spec.containers of type []v1.Container'],
    ['a list for a struct', { spec: [] }, 'json: cannot unmarshal array into Go struct field Pod.spec of type v1.PodSpec'],
    ['a bool for a struct', { metadata: true }, 'json: cannot unmarshal bool into Go struct field Pod.metadata of type v1.ObjectMeta'],
    ['a string for a map', { metadata: { labels: 'a=b' } }, 'json: cannot unmarshal string into Go struct field ObjectMeta.metadata.labels of type map[string]string'],
    ['a number in a string map', { metadata: { labels: { a: 1 } } }, 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string'],
    ['a number in a string list', { spec: { containers: [{ command: ['sh', 1] }] } }, 'json: cannot unmarshal number into Go struct field Container.spec.containers.command of type string'],
    ['an object for a named string type', { spec: { restartPolicy: {} } }, 'json: cannot unmarshal object into Go struct field PodSpec.spec.restartPolicy of type v1.RestartPolicy'],
    ['a number for an enum in a list item', { spec: { containers: [{ imagePullPolicy: 1 }] } },
      'json: cannot unmarshal number into Go struct field Container.spec.containers.imagePullPolicy of type v1.PullPolicy'],
    ['a list for a named map', { spec: { containers: [{ resources: { limits: [] } }] } },
      'json: cannot unmarshal array into Go struct field ResourceRequirements.spec.containers.resources.limits of type v1.ResourceList'],
    ['a fraction for an int32', { spec: { containers: [{ ports: [{ containerPort: 1.5 }] }] } },
      'json: cannot unmarshal number 1.5 into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32'],
    ['an int32 overflow', { spec: { containers: [{ ports: [{ containerPort: 2147483648 }] }] } },
      'json: cannot unmarshal number 2147483648 into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32'],
    ['a string for a types.UID', { metadata: { uid: 7 } }, 'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.uid of type types.UID'],
    ['a number for a list in status', { status: { conditions: 5 } }, 'json: cannot unmarshal number into Go struct field PodStatus.status.conditions of type []v1.PodCondition'],
  ])('%s', (_name, value, message) => {
    expect(decodeError(POD, value)).toBe(message);
  });

  it('words the issue example for ConfigMap data', () => {
    expect(decodeError(node('', 'ConfigMap'), { data: { n: 5 } })).toBe('json: cannot unmarshal number into Go struct field ConfigMap.data of type string');
  });

  it('names the innermost struct of a Deployment field, with the path from the top', () => {
    expect(decodeError(node('apps', 'Deployment'), { spec: { template: { spec: { containers: [{ env: [{ name: 'a', value: 3 }] }] } } } }))
      .toBe('json: cannot unmarshal number into Go struct field EnvVar.spec.template.spec.containers.env.value of type string');
  });

  it('keeps the first type error, as Go does', () => {
    expect(decodeError(POD, { metadata: { name: 1 }, spec: { hostNetwork: 'x' } }))
      .toBe('json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string');
  });
});

describe('decodeTyped: the unstructured converter\'s wording (strategic merge patch results)', () => {
  const converted = (value: unknown) => {
    try {
      decodeTyped(POD, value, true, true);
    } catch (e) {
      return (e as Error).message;
    }
    throw new Error('expected a decoding error');
  };
  it.each([
    [{ spec: { containers: [{ ports: [{ containerPort: '80' }] }] } }, 'unrecognized type: int32'],
    [{ spec: { hostNetwork: 'yes' } }, 'unrecognized type: bool'],
    [{ spec: { containers: [{ name: 5 }] } }, 'cannot convert int64 to string'],
    [{ spec: { restartPolicy: 5 } }, 'cannot convert int64 to v1.RestartPolicy'],
    [{ spec: { containers: [{ name: true }] } }, 'unrecognized type: string'],
    [{ spec: { containers: [{ ports: [{ containerPort: 1.5 }] }] } }, 'cannot convert float64 to int32'],
    [{ spec: { containers: { name: 'a' } } }, 'cannot restore slice from map'],
    [{ spec: [] }, 'cannot restore struct from: slice'],
    [{ metadata: { labels: 'a' } }, 'cannot restore map from string'],
    [{ spec: { containers: [{ livenessProbe: { httpGet: { port: true } } }] } }, 'json: cannot unmarshal bool into Go value of type int32'],
  ])('%j → %s', (value, message) => {
    expect(converted(value)).toBe(message);
  });

  it('converts integral numbers without Go\'s range check, as reflect does', () => {
    expect(decodeTyped(POD, { spec: { activeDeadlineSeconds: 5 } }, true, true).value).toEqual({ spec: { activeDeadlineSeconds: 5 } });
  });
});

describe('decodeTyped: types with their own decoding', () => {
  it('int-or-string: strings and int32s pass, anything else is an int32 error at the field', () => {
    const probe = (port: unknown) => ({ spec: { containers: [{ livenessProbe: { httpGet: { port } } }] } });
    expect(decodeTyped(POD, probe('http'), true).value).toEqual(probe('http'));
    expect(decodeTyped(POD, probe(8080), true).value).toEqual(probe(8080));
    const at = 'Go struct field HTTPGetAction.spec.containers.livenessProbe.httpGet.port of type int32';
    expect(decodeError(POD, probe(true))).toBe(`json: cannot unmarshal bool into ${at}`);
    expect(decodeError(POD, probe(1.5))).toBe(`json: cannot unmarshal number 1.5 into ${at}`);
    expect(decodeError(POD, probe({}))).toBe(`json: cannot unmarshal object into ${at}`);
    expect(decodeError(POD, probe(2 ** 31))).toBe(`json: cannot unmarshal number 2147483648 into ${at}`);
  });

  it('quantities: canonical in place, numbers accepted, bad ones fail with the regular expression', () => {
    const res = (limits: unknown) => ({ spec: { containers: [{ resources: { limits } }] } });
    expect(decodeTyped(POD, res({ cpu: '1.5', memory: '0.5Gi', 'ephemeral-storage': '1536Mi' }), true).value)
      .toEqual(res({ cpu: '1500m', memory: '512Mi', 'ephemeral-storage': '1536Mi' }));
    expect(decodeTyped(POD, res({ cpu: 0.5, memory: 1000 }), true).value).toEqual(res({ cpu: '500m', memory: '1k' }));
    const format = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
    expect(decodeError(POD, res({ cpu: 'lots' }))).toBe(format);
    expect(decodeError(POD, res({ cpu: true }))).toBe(format);
    expect(decodeError(POD, res({ cpu: '1..5' }))).toBe(format);
    expect(decodeError(POD, res({ cpu: '1K' }))).toBe("unable to parse quantity's suffix");
    // Go's UnmarshalJSON of null gives the zero quantity
    expect(decodeTyped(POD, res({ cpu: null }), true).value).toEqual(res({ cpu: '0' }));
  });

  it('a quantity error stops decoding and wins over an earlier type error', () => {
    expect(decodeError(POD, { metadata: { name: 1 }, spec: { overhead: { cpu: 'x' } } })).toMatch(/^quantities must match/);
  });

  it('byte: base64 checked with Go\'s offset, re-encoded canonically', () => {
    const secret = node('', 'Secret');
    expect(decodeTyped(secret, { data: { a: 'YWJj', b: 'YR==', c: 'YW\nJj' } }, true).value).toEqual({ data: { a: 'YWJj', b: 'YQ==', c: 'YWJj' } });
    expect(decodeError(secret, { data: { a: 'abc!' } })).toBe('illegal base64 data at input byte 3');
    expect(decodeError(secret, { data: { a: 'YWJ' } })).toBe('illegal base64 data at input byte 0');
    expect(decodeError(secret, { data: { a: 'YQ=x' } })).toBe('illegal base64 data at input byte 2');
    expect(decodeError(secret, { data: { a: 'YQ==YQ==' } })).toBe('illegal base64 data at input byte 4');
    expect(decodeError(secret, { data: { a: 5 } })).toBe('json: cannot unmarshal number into Go struct field Secret.data of type []uint8');
    // Go decodes a JSON array of numbers into []byte element by element
    expect(decodeTyped(secret, { data: { a: [97, 98, 99] } }, true).value).toEqual({ data: { a: 'YWJj' } });
  });

  it('date-time: RFC 3339 stored in UTC with second precision, Go\'s parse errors', () => {
    const at = (t: unknown) => ({ metadata: { creationTimestamp: t } });
    expect(decodeTyped(POD, at('2024-03-01T10:20:30+02:00'), true).value).toEqual(at('2024-03-01T08:20:30Z'));
    expect(decodeTyped(POD, at('2024-03-01T10:20:30.123456Z'), true).value).toEqual(at('2024-03-01T10:20:30Z'));
    const layout = '"2006-01-02T15:04:05Z07:00"';
    expect(decodeError(POD, at('yesterday'))).toBe(`parsing time "yesterday" as ${layout}: cannot parse "yesterday" as "2006"`);
    expect(decodeError(POD, at('2024-03-01 10:20:30Z'))).toBe(`parsing time "2024-03-01 10:20:30Z" as ${layout}: cannot parse " 10:20:30Z" as "T"`);
    expect(decodeError(POD, at('2024-03-01T10:20:30'))).toBe(`parsing time "2024-03-01T10:20:30" as ${layout}: cannot parse "" as "Z07:00"`);
    expect(decodeError(POD, at('2024-13-01T10:20:30Z'))).toBe('parsing time "2024-13-01T10:20:30Z": month out of range');
    expect(decodeError(POD, at('2023-02-29T10:20:30Z'))).toBe('parsing time "2023-02-29T10:20:30Z": day out of range');
    expect(decodeError(POD, at('2024-03-01T10:20:30Zjunk'))).toBe('parsing time "2024-03-01T10:20:30Zjunk": extra text: "junk"');
    expect(decodeError(POD, at(5))).toBe('json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string');
  });

  it('micro-time: six fractional digits required and kept', () => {
    const lease = node('coordination.k8s.io', 'Lease');
    expect(decodeTyped(lease, { spec: { renewTime: '2024-03-01T10:20:30.123456+01:00' } }, true).value)
      .toEqual({ spec: { renewTime: '2024-03-01T09:20:30.123456Z' } });
    expect(decodeError(lease, { spec: { renewTime: '2024-03-01T10:20:30Z' } }))
      .toBe('parsing time "2024-03-01T10:20:30Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"');
  });
});

describe('decodeTyped: null', () => {
  it('drops null struct fields and zeroes null map values and list elements', () => {
    const out = decodeTyped(POD, { metadata: { name: null, labels: { a: null } }, spec: { containers: [{ name: 'c', args: ['x', null] }], nodeName: null } }, true);
    expect(out.value).toEqual({ metadata: { labels: { a: '' } }, spec: { containers: [{ name: 'c', args: ['x', ''] }] } });
  });
});

describe('decodeTyped: unknown fields', () => {
  const body = () => ({
    metadata: { name: 'x', lables: { a: 'b' } },
    spec: { template: { spec: { containers: [{ name: 'a', image: 'i' }, { name: 'b', imagee: 'i', ports: [{ containerPort: 80, hostPortt: 1 }] }] } } },
    extra: { deep: 1 },
  });
  const pruned = {
    metadata: { name: 'x' },
    spec: { template: { spec: { containers: [{ name: 'a', image: 'i' }, { name: 'b', ports: [{ containerPort: 80 }] }] } } },
  };

  it('reports each one with sigs.k8s.io/json\'s indexed path, in document order, and prunes them', () => {
    const out = decodeTyped(node('apps', 'Deployment'), body(), true);
    expect(out.strictErrors).toEqual([
      'unknown field "metadata.lables"',
      'unknown field "spec.template.spec.containers[1].imagee"',
      'unknown field "spec.template.spec.containers[1].ports[0].hostPortt"',
      'unknown field "extra"',
    ]);
    expect(out.value).toEqual(pruned);
  });

  it('the non-strict decoder (Ignore) prunes without reporting', () => {
    const out = decodeTyped(node('apps', 'Deployment'), body(), false);
    expect(out.strictErrors).toEqual([]);
    expect(out.value).toEqual(pruned);
  });

  it('is case-sensitive: a known field in another case is unknown', () => {
    const out = decodeTyped(POD, { Spec: {}, metadata: { Name: 'x' } }, true);
    expect(out.strictErrors).toEqual(['unknown field "Spec"', 'unknown field "metadata.Name"']);
  });

  it('keeps unknown fields where the schema preserves them, and raw values as sent', () => {
    const crd = fromOpenAPIV3({
      type: 'object',
      properties: {
        spec: { type: 'object', properties: { size: { type: 'integer' } }, 'x-kubernetes-preserve-unknown-fields': true },
        status: { type: 'object', properties: { phase: { type: 'string' } } },
        port: { 'x-kubernetes-int-or-string': true },
      },
    });
    const out = decodeTyped(crd, { spec: { size: 2, free: { any: [1] } }, status: { phase: 'Up', junk: 1 }, port: 'http' }, true);
    expect(out.value).toEqual({ spec: { size: 2, free: { any: [1] } }, status: { phase: 'Up' }, port: 'http' });
    expect(out.strictErrors).toEqual(['unknown field "status.junk"']);
    const event = decodeTyped(node('', 'Pod'), { metadata: { managedFields: [{ fieldsV1: { 'f:spec': { '.': {} } } }] } }, true);
    expect(event.value).toEqual({ metadata: { managedFields: [{ fieldsV1: { 'f:spec': { '.': {} } } }] } });
  });

  it('a CRD schema (no Go types) prunes and reports unknown fields but leaves wrong types to validation', () => {
    const crd = fromOpenAPIV3({
      type: 'object',
      properties: {
        spec: { type: 'object', properties: { replicas: { type: 'integer' }, port: { 'x-kubernetes-int-or-string': true }, tags: { type: 'array', items: { type: 'string' } } } },
        status: { type: 'object', nullable: true },
        empty: { type: 'object' },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true },
        embedded: { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
      },
    });
    const out = decodeTyped(crd, {
      spec: { replicas: 'three', port: true, tags: 'x', bogus: 1 }, status: null, empty: { a: 1 }, template: { kind: 'Pod', x: 1 },
      embedded: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' }, spec: { any: 1 }, y: 2 },
    }, true);
    expect(out.value).toEqual({ spec: { replicas: 'three', port: true, tags: 'x' }, status: null, empty: {}, template: { kind: 'Pod' },
      embedded: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' }, spec: { any: 1 } },
    });
    expect(out.strictErrors).toEqual(['unknown field "spec.bogus"', 'unknown field "empty.a"', 'unknown field "template.x"', 'unknown field "embedded.y"']);
  });

  it('counts every member of the input, pruned or raw, for the duplicate check', () => {
    expect(decodeTyped(node('apps', 'Deployment'), body(), true).members).toBe(17);
  });
});

describe('decodeTyped: real objects', () => {
  it.each([
    ['Deployment', 'apps', deployment(3)],
    ['StatefulSet', 'apps', statefulSet()],
    ['Job', 'batch', job()],
    ['Pod', '', pod()],
  ])('a valid %s passes unchanged', (kind, group, obj) => {
    const before = structuredClone(obj);
    const out = decodeTyped(node(group, kind), obj, true);
    expect(out.strictErrors).toEqual([]);
    expect(out.value).toEqual(before);
  });

  it('Scale and review objects have schemas too', () => {
    expect(decodeError(node('autoscaling', 'Scale'), { spec: { replicas: '3' } }))
      .toBe('json: cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32');
    expect(decodeError(node('authorization.k8s.io', 'SelfSubjectAccessReview'), { spec: { resourceAttributes: { verb: 1 } } }))
      .toBe('json: cannot unmarshal number into Go struct field ResourceAttributes.spec.resourceAttributes.verb of type string');
  });
});

describe('kindNode', () => {
  it('finds a schema for every served kind, and Scale', async () => {
    const { RESOURCE_TYPES } = await import('../../../core/registry');
    // metrics.k8s.io is metrics-server's API (served built in, never decoded from a body): not in kube's schema.
    const missing = RESOURCE_TYPES.filter((t) => t.group !== 'metrics.k8s.io' && !kindNode(t.group, t.version, t.kind)).map((t) => t.kind);
    expect(missing).toEqual([]);
    expect(kindNode('autoscaling', 'v1', 'Scale')?.goStruct).toBe('Scale');
  });
});
