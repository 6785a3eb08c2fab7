// Tests: protobuf request bodies, built field by field the way client-go (gogo-protobuf) writes them, decode to
// the JSON kubectl would send for the same object.

import { describe, expect, it } from 'vitest';
import {
  goDuration,
  isProtobufBody,
  MalformedProtobuf,
  protobufToJson,
  UnsupportedProtobufKind,
} from '../../../core/protobuf/decode';
import { b, cat, entry, entryOf, envelope, m, newObjectMeta, packed, s, utf8, v, varint } from './encode';

const quantity = (field: number, value: string) => m(field, s(1, value));
const intOrString = (field: number, value: number | string) =>
  typeof value === 'number' ? m(field, v(1, 0), v(2, value), s(3, '')) : m(field, v(1, 1), v(2, 0), s(3, value));
/** metav1.Time {seconds=1, nanos=2}. */
const time = (field: number, seconds: number, nanos = 0) => m(field, v(1, seconds), v(2, nanos));

interface Case {
  name: string;
  body: Uint8Array;
  json: Record<string, unknown>;
}

const cases: Case[] = [
  {
    name: 'Namespace (kubectl create namespace demo)',
    body: envelope('v1', 'Namespace', newObjectMeta('demo'), m(2), m(3, s(1, ''))),
    json: {
      kind: 'Namespace',
      apiVersion: 'v1',
      metadata: { name: 'demo', creationTimestamp: null },
      spec: {},
      status: {},
    },
  },
  {
    name: 'ConfigMap with data and binaryData',
    body: envelope(
      'v1',
      'ConfigMap',
      newObjectMeta('c', 'default'),
      entry(2, 'b', 'two'),
      entry(2, 'a', 'one'),
      entryOf(3, 'bin', b(2, Uint8Array.from([0, 1, 2, 255]))),
    ),
    json: {
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { name: 'c', namespace: 'default', creationTimestamp: null },
      data: { a: 'one', b: 'two' },
      binaryData: { bin: 'AAEC/w==' },
    },
  },
  {
    name: 'Secret: bytes values become base64, immutable=false survives (a Go pointer)',
    body: envelope(
      'v1',
      'Secret',
      newObjectMeta('s'),
      entryOf(2, 'k', b(2, utf8('v'))),
      s(3, 'Opaque'),
      entry(4, 'plain', 'text'),
      v(5, false),
    ),
    json: {
      kind: 'Secret',
      apiVersion: 'v1',
      metadata: { name: 's', creationTimestamp: null },
      immutable: false,
      data: { k: 'dg==' },
      stringData: { plain: 'text' },
      type: 'Opaque',
    },
  },
  {
    name: 'Deployment with containers, ports and resources (kubectl create deployment --replicas=2 --port=80)',
    body: envelope(
      'apps/v1',
      'Deployment',
      newObjectMeta('d', '', entry(11, 'app', 'd')),
      m(
        2,
        v(1, 2),
        m(2, entry(1, 'app', 'd')),
        m(
          3,
          newObjectMeta('', '', entry(11, 'app', 'd')),
          m(
            2,
            m(
              2,
              s(1, 'nginx'),
              s(2, 'nginx'),
              m(6, s(1, ''), v(2, 0), v(3, 80), s(4, '')),
              m(8, entryOf(1, 'cpu', quantity(2, '500m')), entryOf(2, 'memory', quantity(2, '64Mi'))),
              s(13, ''),
              s(14, ''),
              v(16, false),
              v(17, false),
              v(18, false),
            ),
            s(3, ''),
            s(6, ''),
            v(11, false),
          ),
        ),
        m(4, s(1, '')),
        v(5, 0),
        v(7, false),
      ),
      m(3, v(1, 0), v(2, 0)),
    ),
    json: {
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      metadata: { name: 'd', creationTimestamp: null, labels: { app: 'd' } },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'd' } },
        template: {
          metadata: { creationTimestamp: null, labels: { app: 'd' } },
          spec: {
            containers: [
              {
                name: 'nginx',
                image: 'nginx',
                ports: [{ containerPort: 80 }],
                resources: { limits: { cpu: '500m' }, requests: { memory: '64Mi' } },
              },
            ],
          },
        },
        strategy: {},
      },
      status: {},
    },
  },
  {
    name: 'Deployment replicas=0 is kept (pointer), minReadySeconds=0 is not',
    body: envelope('apps/v1', 'Deployment', m(2, v(1, 0), v(5, 0), v(6, 0))),
    json: { kind: 'Deployment', apiVersion: 'apps/v1', spec: { replicas: 0, revisionHistoryLimit: 0 } },
  },
  {
    name: 'Service with IntOrString targetPort as number and as name',
    body: envelope(
      'v1',
      'Service',
      newObjectMeta('svc', '', entry(11, 'app', 'svc')),
      m(
        2,
        m(1, s(1, '80-8080'), s(2, 'TCP'), v(3, 80), intOrString(4, 8080), v(5, 0)),
        m(1, s(1, 'web'), s(2, 'TCP'), v(3, 443), intOrString(4, 'https'), v(5, 0)),
        entry(2, 'app', 'svc'),
        s(3, ''),
        s(4, 'ClusterIP'),
        v(13, false),
      ),
      m(3, m(1)),
    ),
    json: {
      kind: 'Service',
      apiVersion: 'v1',
      metadata: { name: 'svc', creationTimestamp: null, labels: { app: 'svc' } },
      spec: {
        ports: [
          { name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 },
          { name: 'web', protocol: 'TCP', port: 443, targetPort: 'https' },
        ],
        selector: { app: 'svc' },
        type: 'ClusterIP',
      },
      status: { loadBalancer: {} },
    },
  },
  {
    name: 'TokenRequest (kubectl create token sa --duration=1h --bound-object-kind=Pod)',
    body: envelope(
      'authentication.k8s.io/v1',
      'TokenRequest',
      newObjectMeta('sa', 'default'),
      m(2, s(1, 'https://kubernetes.default.svc'), m(3, s(1, 'Pod'), s(2, 'v1'), s(3, 'p'), s(4, 'uid-1')), v(4, 3600)),
      m(3, s(1, ''), m(2)),
    ),
    json: {
      kind: 'TokenRequest',
      apiVersion: 'authentication.k8s.io/v1',
      metadata: { name: 'sa', namespace: 'default', creationTimestamp: null },
      spec: {
        audiences: ['https://kubernetes.default.svc'],
        expirationSeconds: 3600,
        boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'p', uid: 'uid-1' },
      },
      status: { token: '', expirationTimestamp: null },
    },
  },
  {
    name: 'SelfSubjectAccessReview (kubectl auth can-i list pods): status.allowed=false is kept (required)',
    body: envelope(
      'authorization.k8s.io/v1',
      'SelfSubjectAccessReview',
      newObjectMeta(''),
      m(2, m(1, s(1, 'default'), s(2, 'list'), s(3, ''), s(4, ''), s(5, 'pods'), s(6, ''), s(7, ''))),
      m(3, v(1, false), s(2, ''), s(3, ''), v(4, false)),
    ),
    json: {
      kind: 'SelfSubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      metadata: { creationTimestamp: null },
      spec: { resourceAttributes: { namespace: 'default', verb: 'list', resource: 'pods' } },
      status: { allowed: false },
    },
  },
  {
    name: 'SubjectAccessReview extra: ExtraValue messages become bare string arrays',
    body: envelope(
      'authorization.k8s.io/v1',
      'SubjectAccessReview',
      m(
        2,
        s(3, 'u'),
        s(4, 'g1'),
        s(4, 'g2'),
        entryOf(5, 'scopes', m(2, s(1, 'a'), s(1, 'b'))),
        entryOf(5, 'none', m(2)),
      ),
    ),
    json: {
      kind: 'SubjectAccessReview',
      apiVersion: 'authorization.k8s.io/v1',
      spec: { user: 'u', groups: ['g1', 'g2'], extra: { none: [], scopes: ['a', 'b'] } },
    },
  },
  {
    name: 'Pod volumes and env sources: json:",inline" structs merge into their parent',
    body: envelope(
      'v1',
      'Pod',
      m(
        2,
        m(1, s(1, 'scratch'), m(2, m(2, s(1, ''), quantity(2, '1Gi')))),
        m(1, s(1, 'cfg'), m(2, m(19, m(1, s(1, 'my-config')), v(3, 420)))),
        m(
          2,
          s(1, 'c'),
          m(7, s(1, 'KEY'), s(2, ''), m(3, m(3, m(1, s(1, 'cm')), s(2, 'k'), v(3, false)))),
          m(10, m(1, m(2, s(1, '/healthz'), intOrString(2, 8080))), v(2, 0), v(3, 1)),
        ),
      ),
    ),
    json: {
      kind: 'Pod',
      apiVersion: 'v1',
      spec: {
        volumes: [
          { name: 'scratch', emptyDir: { sizeLimit: '1Gi' } },
          { name: 'cfg', configMap: { name: 'my-config', defaultMode: 420 } },
        ],
        containers: [
          {
            name: 'c',
            env: [{ name: 'KEY', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k', optional: false } } }],
            livenessProbe: { httpGet: { path: '/healthz', port: 8080 }, timeoutSeconds: 1 },
          },
        ],
      },
    },
  },
  {
    name: 'SecurityContext zeros that matter survive: runAsUser=0, allowPrivilegeEscalation=false',
    body: envelope('v1', 'Pod', m(2, m(2, s(1, 'c'), m(15, v(4, 0), v(7, false))), m(14, v(2, 0), v(3, true)))),
    json: {
      kind: 'Pod',
      apiVersion: 'v1',
      spec: {
        containers: [{ name: 'c', securityContext: { runAsUser: 0, allowPrivilegeEscalation: false } }],
        securityContext: { runAsUser: 0, runAsNonRoot: true },
      },
    },
  },
  {
    name: 'Lease: MicroTime keeps microseconds, Time drops sub-second precision',
    body: envelope(
      'coordination.k8s.io/v1',
      'Lease',
      newObjectMeta('l', 'kube-system', time(9, 1767323045, 999_000_000)),
      m(2, s(1, ''), v(2, 15), time(3, 1767323045, 123_456_789), time(4, 0, 0), v(5, 0)),
    ),
    json: {
      kind: 'Lease',
      apiVersion: 'coordination.k8s.io/v1',
      metadata: {
        name: 'l',
        namespace: 'kube-system',
        creationTimestamp: null,
        deletionTimestamp: '2026-01-02T03:04:05Z',
      },
      spec: {
        holderIdentity: '',
        leaseDurationSeconds: 15,
        acquireTime: '2026-01-02T03:04:05.123456Z',
        renewTime: '1970-01-01T00:00:00.000000Z',
        leaseTransitions: 0,
      },
    },
  },
  {
    name: 'Job: packed and unpacked repeated int32 both decode; negative int32 and int64',
    body: envelope(
      'batch/v1',
      'Job',
      m(
        2,
        v(7, 0),
        v(3, 2 ** 40),
        m(11, m(1, s(1, 'FailJob'), m(2, s(2, 'In'), packed(3, [1, 2]), v(3, 3)))),
        m(6, m(2, m(2, s(1, 'c')))),
      ),
      m(3, v(4, -1)),
    ),
    json: {
      kind: 'Job',
      apiVersion: 'batch/v1',
      spec: {
        activeDeadlineSeconds: 2 ** 40,
        podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [1, 2, 3] } }] },
        backoffLimit: 0,
        template: { spec: { containers: [{ name: 'c' }] } },
      },
      status: { active: -1 },
    },
  },
  {
    name: 'DeleteOptions is accepted in any group version; gracePeriodSeconds=0 survives',
    body: envelope('apps/v1', 'DeleteOptions', v(1, 0), s(4, 'Foreground'), s(5, 'All')),
    json: {
      kind: 'DeleteOptions',
      apiVersion: 'apps/v1',
      gracePeriodSeconds: 0,
      propagationPolicy: 'Foreground',
      dryRun: ['All'],
    },
  },
  {
    name: 'ControllerRevision data and managedFields carry raw JSON',
    body: envelope(
      'apps/v1',
      'ControllerRevision',
      m(
        1,
        s(1, 'rev'),
        m(
          17,
          s(1, 'kubectl'),
          s(2, 'Update'),
          s(3, 'apps/v1'),
          time(4, 0),
          s(6, 'FieldsV1'),
          m(7, b(1, utf8('{"f:data":{}}'))),
          s(8, ''),
        ),
      ),
      m(2, b(1, utf8('{"spec":{"x":1}}'))),
      v(3, 7),
    ),
    json: {
      kind: 'ControllerRevision',
      apiVersion: 'apps/v1',
      metadata: {
        name: 'rev',
        managedFields: [
          {
            manager: 'kubectl',
            operation: 'Update',
            apiVersion: 'apps/v1',
            time: '1970-01-01T00:00:00Z',
            fieldsType: 'FieldsV1',
            fieldsV1: { 'f:data': {} },
            subresource: '',
          },
        ],
      },
      data: { spec: { x: 1 } },
      revision: 7,
    },
  },
  {
    name: 'fields newer than the schema are skipped',
    body: envelope('v1', 'Namespace', m(1, s(1, 'n'), s(999, 'future'), v(998, 5)), m(2, s(1, 'kubernetes'))),
    json: { kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'n' }, spec: { finalizers: ['kubernetes'] } },
  },
];

describe('protobufToJson', () => {
  it.each(cases)('$name', ({ body, json }) => {
    expect(protobufToJson(body)).toStrictEqual(json);
  });

  it('emits keys in Go struct order, as encoding/json does', () => {
    // Wire order (ascending field numbers) differs from struct order for ObjectMeta.name/uid and Service ports.
    const body = envelope('v1', 'Service', m(2, s(4, 'NodePort'), m(1, v(5, 30000), v(3, 80), s(1, 'p'))));
    const out = protobufToJson(body);
    const spec = out.spec as { ports: Record<string, unknown>[] };
    expect(Object.keys(spec)).toEqual(['ports', 'type']);
    expect(Object.keys(spec.ports[0]!)).toEqual(['name', 'port', 'nodePort']);
  });

  it('merges repeated occurrences of a non-repeated message field, as protobuf requires', () => {
    const out = protobufToJson(envelope('v1', 'ConfigMap', m(1, s(1, 'a')), m(1, s(3, 'ns'))));
    expect(out.metadata).toEqual({ name: 'a', namespace: 'ns' });
  });

  it('reads a JSON payload carried inside the envelope', () => {
    const body = cat(
      Uint8Array.from([0x6b, 0x38, 0x73, 0x00]),
      m(1, s(1, 'v1'), s(2, 'ConfigMap')),
      b(2, utf8('{"metadata":{"name":"j"}}')),
      s(4, 'application/json'),
    );
    expect(protobufToJson(body)).toEqual({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'j' } });
  });
});

describe('protobufToJson errors', () => {
  const truncated = envelope('v1', 'Namespace', newObjectMeta('x'));
  const prefix = Uint8Array.from([0x6b, 0x38, 0x73, 0]);
  const ns = (...raw: Uint8Array[]) => envelope('v1', 'Namespace', ...raw);
  const errorCases: { name: string; body: Uint8Array; error: new (...args: never[]) => Error; message?: RegExp }[] = [
    {
      name: 'unknown kind',
      body: envelope('example.com/v1', 'Widget'),
      error: UnsupportedProtobufKind,
      message: /Widget/,
    },
    { name: 'known group, unknown kind', body: envelope('v1', 'Frobnicator'), error: UnsupportedProtobufKind },
    { name: 'no magic prefix', body: utf8('{"kind":"Namespace"}'), error: MalformedProtobuf },
    { name: 'truncated body', body: truncated.subarray(0, truncated.length - 3), error: MalformedProtobuf },
    { name: 'length runs past the end', body: cat(prefix, varint(0x0a), varint(50)), error: MalformedProtobuf },
    { name: 'envelope without a kind', body: envelope('v1', ''), error: MalformedProtobuf },
    { name: 'wrong wire type for a string', body: ns(m(1, v(1, 5))), error: MalformedProtobuf },
    { name: 'unterminated varint', body: ns(Uint8Array.from([0x08, 0xff, 0xff])), error: MalformedProtobuf },
    { name: 'field number zero', body: ns(Uint8Array.from([0x00, 0x01])), error: MalformedProtobuf },
    { name: 'deprecated group wire type', body: ns(Uint8Array.from([0xfb, 0x3e])), error: MalformedProtobuf },
    {
      name: 'invalid raw JSON',
      body: envelope('apps/v1', 'ControllerRevision', m(2, b(1, utf8('{nope')))),
      error: MalformedProtobuf,
    },
  ];
  it.each(errorCases)('$name', ({ body, error, message }) => {
    expect(() => protobufToJson(body)).toThrow(error);
    if (message) expect(() => protobufToJson(body)).toThrow(message);
  });

  it('UnsupportedProtobufKind carries the apiVersion and kind', () => {
    try {
      protobufToJson(envelope('example.com/v1', 'Widget'));
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(UnsupportedProtobufKind);
      expect(e).toMatchObject({ apiVersion: 'example.com/v1', kind: 'Widget' });
    }
  });
});

describe('isProtobufBody', () => {
  it.each([
    { body: Uint8Array.from([0x6b, 0x38, 0x73, 0x00, 0x0a]), expected: true },
    { body: Uint8Array.from([0x6b, 0x38, 0x73, 0x00]), expected: true },
    { body: Uint8Array.from([0x6b, 0x38, 0x73]), expected: false },
    { body: utf8('{"kind":"Pod"}'), expected: false },
    { body: new Uint8Array(), expected: false },
  ])('$body → $expected', ({ body, expected }) => {
    expect(isProtobufBody(body)).toBe(expected);
  });
});

describe('goDuration (metav1.Duration JSON)', () => {
  it.each([
    [0, '0s'],
    [1, '1ns'],
    [1500, '1.5µs'],
    [300_000_000, '300ms'],
    [1_500_000_000, '1.5s'],
    [90e9, '1m30s'],
    [3600e9, '1h0m0s'],
    [3600e9 + 500_000_000, '1h0m0.5s'],
    [-5e9, '-5s'],
  ])('%d ns → %s', (ns, text) => {
    expect(goDuration(ns)).toBe(text);
  });
});
