import { describe, expect, it } from 'vitest';
import { RESOURCE_TYPES, type ResourceType } from '../../../core/registry';
import { parseFieldSelector } from '../../../core/selectors/field-selector';
import { checkFieldSelector, objectFields } from '../../../core/selectors/object-fields';

function typeOf(kind: string): ResourceType {
  const t = RESOURCE_TYPES.find((r) => r.kind === kind);
  if (!t) throw new Error(`no registry entry for ${kind}`);
  return t;
}

describe('objectFields', () => {
  it.each([
    [
      'ConfigMap',
      { metadata: { name: 'cfg', namespace: 'default' }, data: {} },
      { 'metadata.name': 'cfg', 'metadata.namespace': 'default' },
    ],
    // Cluster-scoped types expose metadata.name only.
    ['Namespace', { metadata: { name: 'team-a' }, status: { phase: 'Active' } }, { 'metadata.name': 'team-a', 'status.phase': 'Active' }],
    ['Node', { metadata: { name: 'n1' }, spec: { unschedulable: true } }, { 'metadata.name': 'n1', 'spec.unschedulable': 'true' }],
    // An unset Go bool reads "false", never "".
    ['Node', { metadata: { name: 'n1' } }, { 'metadata.name': 'n1', 'spec.unschedulable': 'false' }],
    ['Secret', { metadata: { name: 's', namespace: 'ns' }, type: 'Opaque' }, { 'metadata.name': 's', 'metadata.namespace': 'ns', type: 'Opaque' }],
    ['Secret', {}, { 'metadata.name': '', 'metadata.namespace': '', type: '' }],
  ])('%s %j', (kind, obj, fields) => {
    expect(objectFields(typeOf(kind), obj)).toEqual(fields);
  });

  it('exposes every pod field, with spec.host reading spec.nodeName', () => {
    const pod = {
      metadata: { name: 'web-0', namespace: 'prod' },
      spec: { nodeName: 'n1', restartPolicy: 'Always', schedulerName: 'default-scheduler', serviceAccountName: 'sa', hostNetwork: true },
      status: { phase: 'Running', podIP: '10.0.0.7' },
    };
    expect(objectFields(typeOf('Pod'), pod)).toEqual({
      'metadata.name': 'web-0',
      'metadata.namespace': 'prod',
      'spec.nodeName': 'n1',
      'spec.host': 'n1',
      'spec.restartPolicy': 'Always',
      'spec.schedulerName': 'default-scheduler',
      'spec.serviceAccountName': 'sa',
      'spec.hostNetwork': 'true',
      'status.phase': 'Running',
      'status.podIP': '10.0.0.7',
      'status.nominatedNodeName': '',
    });
  });

  it.each([
    [{ source: { component: 'kubelet' }, reportingComponent: 'other' }, 'kubelet'],
    // EventToSelectableFields falls back to the reporting controller.
    [{ source: {}, reportingComponent: 'scheduler' }, 'scheduler'],
    [{}, ''],
  ])('event source of %j is %j', (event, source) => {
    expect(objectFields(typeOf('Event'), { metadata: { name: 'e', namespace: 'ns' }, ...event })['source']).toBe(source);
  });
});

describe('checkFieldSelector', () => {
  it.each([
    ['ConfigMap', 'metadata.name=a,metadata.namespace=b', undefined],
    ['Pod', 'spec.nodeName=n1,status.phase!=Running,spec.host=n1', undefined],
    ['Namespace', 'status.phase=Active', undefined],
    ['Event', 'involvedObject.name=web,reason=Failed,source=kubelet,type=Warning', undefined],
    ['Secret', 'type=kubernetes.io/tls', undefined],
    ['Service', 'spec.clusterIP=None', undefined],
    ['Node', 'spec.unschedulable=false', undefined],
    ['Pod', 'spec.foo=x', 'field label not supported: spec.foo'],
    ['Pod', 'metadata.labels=x', 'field label not supported: metadata.labels'],
    ['Service', 'spec.ports=x', 'field label not supported: spec.ports'],
    // Node and Namespace register their own conversion funcs, which leave out metadata.namespace.
    ['Node', 'metadata.namespace=x', 'field label not supported: metadata.namespace'],
    ['Namespace', 'metadata.namespace=x', 'field label not supported: metadata.namespace'],
    // Kinds without a conversion func get runtime.DefaultMetaV1FieldSelectorConversion's wording.
    ['ConfigMap', 'spec.foo=x', '"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"'],
    ['Deployment', 'status.replicas=1', '"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"'],
    ['Lease', 'spec.holderIdentity=x', '"spec.holderIdentity" is not a known field selector: only "metadata.name", "metadata.namespace"'],
    ['Job', 'spec.foo=x', 'field label "spec.foo" not supported for Job'],
    // The first unsupported label in sorted order is reported.
    ['Pod', 'spec.zzz=1,spec.aaa=2', 'field label not supported: spec.aaa'],
  ])('%s with %j', (kind, text, message) => {
    expect(checkFieldSelector(typeOf(kind), parseFieldSelector(text))).toBe(message);
  });
});
