import { describe, expect, it } from 'vitest';
import { PatchError } from '../../../core/patch/patch-error';
import { patchMetaFor } from '../../../core/patch/patch-strategies';
import { applyStrategicMergePatch } from '../../../core/patch/strategic-merge-patch';

type Obj = Record<string, unknown>;

function failure(doc: unknown, patch: unknown, kind = 'Pod'): PatchError {
  try {
    applyStrategicMergePatch(doc, patch, kind);
  } catch (e) {
    if (e instanceof PatchError) return e;
    throw e;
  }
  throw new Error('patch applied but was expected to fail');
}

const c = (name: string, extra: Obj = {}) => ({ name, ...extra });

describe('patchMetaFor', () => {
  it.each([
    ['Deployment', 'spec.template.spec.containers', { strategy: 'merge', mergeKey: 'name' }],
    ['Deployment', 'spec.template.spec.containers[].ports', { strategy: 'merge', mergeKey: 'containerPort' }],
    ['Deployment', 'spec.template.spec.containers[].env', { strategy: 'merge', mergeKey: 'name' }],
    ['Deployment', 'spec.template.spec.containers[].volumeMounts', { strategy: 'merge', mergeKey: 'mountPath' }],
    ['Deployment', 'spec.template.spec.initContainers[0].env', { strategy: 'merge', mergeKey: 'name' }],
    ['Deployment', 'spec.template.spec.volumes', { strategy: 'merge', mergeKey: 'name', retainKeys: true }],
    ['Deployment', 'spec.template.spec.imagePullSecrets', { strategy: 'merge', mergeKey: 'name' }],
    ['Deployment', 'spec.template.spec.tolerations', { strategy: 'replace' }],
    ['Deployment', 'spec.template.metadata.finalizers', { strategy: 'merge' }],
    ['Deployment', 'status.conditions', { strategy: 'merge', mergeKey: 'type' }],
    ['Deployment', 'spec.strategy', { strategy: 'replace', retainKeys: true }],
    ['Pod', 'spec.containers.ports', { strategy: 'merge', mergeKey: 'containerPort' }],
    ['Pod', 'spec.containers[].args', { strategy: 'replace' }],
    ['Pod', 'spec.ephemeralContainers', { strategy: 'merge', mergeKey: 'name' }],
    ['Pod', 'spec.topologySpreadConstraints', { strategy: 'merge', mergeKey: 'topologyKey' }],
    ['Pod', 'spec.hostAliases', { strategy: 'merge', mergeKey: 'ip' }],
    ['Pod', 'spec.schedulingGates', { strategy: 'merge', mergeKey: 'name' }],
    ['Pod', 'spec.readinessGates', { strategy: 'replace' }],
    ['Pod', 'status.conditions', { strategy: 'merge', mergeKey: 'type' }],
    ['Pod', 'status.podIPs', { strategy: 'merge', mergeKey: 'ip' }],
    ['Pod', 'metadata.ownerReferences', { strategy: 'merge', mergeKey: 'uid' }],
    ['Pod', 'metadata.managedFields', { strategy: 'replace' }],
    ['Service', 'spec.ports', { strategy: 'merge', mergeKey: 'port' }],
    ['Service', 'spec.externalIPs', { strategy: 'replace' }],
    ['ServiceAccount', 'secrets', { strategy: 'merge', mergeKey: 'name' }],
    ['ServiceAccount', 'imagePullSecrets', { strategy: 'replace' }],
    ['Node', 'spec.podCIDRs', { strategy: 'merge' }],
    ['Node', 'spec.taints', { strategy: 'replace' }],
    ['Node', 'status.addresses', { strategy: 'merge', mergeKey: 'type' }],
    ['StatefulSet', 'spec.template.spec.containers', { strategy: 'merge', mergeKey: 'name' }],
    ['StatefulSet', 'spec.volumeClaimTemplates', { strategy: 'replace' }],
    ['DaemonSet', 'spec.template.spec.containers[].volumeMounts', { strategy: 'merge', mergeKey: 'mountPath' }],
    ['ReplicaSet', 'spec.template.spec.containers', { strategy: 'merge', mergeKey: 'name' }],
    ['Job', 'spec.template.spec.containers', { strategy: 'merge', mergeKey: 'name' }],
    ['Job', 'status.conditions', { strategy: 'merge', mergeKey: 'type' }],
    ['CronJob', 'spec.jobTemplate.spec.template.spec.containers', { strategy: 'merge', mergeKey: 'name' }],
    ['ReplicationController', 'spec.template.spec.containers', { strategy: 'merge', mergeKey: 'name' }],
    ['PodTemplate', 'template.spec.containers', { strategy: 'merge', mergeKey: 'name' }],
    ['Namespace', 'spec.finalizers', { strategy: 'replace' }],
    ['EndpointSlice', 'endpoints', { strategy: 'replace' }],
    ['Widget', 'metadata.finalizers', { strategy: 'merge' }],
    ['Widget', 'spec.template.spec.containers', { strategy: 'replace' }],
    ['Deployment', 'spec.nonsense.containers', { strategy: 'replace' }],
  ])('%s %s', (kind, path, meta) => {
    expect(patchMetaFor(kind, path)).toEqual(meta);
  });

  it('takes the path as segments too', () => {
    expect(patchMetaFor('Deployment', ['spec', 'template', 'spec', 'containers', 'ports'])).toEqual({
      strategy: 'merge',
      mergeKey: 'containerPort',
    });
  });
});

// apimachinery strategicpatch patch_test.go cases (result of applying the patch to the current
// object), expressed on real Pod fields: mergingList -> spec.containers (merge by name),
// mergingIntList -> metadata.finalizers (merge primitives), nonMergingList -> spec.tolerations,
// nonMergingIntList -> containers[].args, simpleMap -> metadata.labels.
describe('applyStrategicMergePatch: apimachinery test cases', () => {
  const containers = (...list: Obj[]) => ({ spec: { containers: list } });
  const finalizers = (...list: string[]) => ({ metadata: { finalizers: list } });

  it.each<[string, Obj, Obj, Obj]>([
    ['unique scalars when merging lists', finalizers('1', '2'), { metadata: { finalizers: ['2', '3'] } }, finalizers('1', '2', '3')],
    ['delete map from nested map', { metadata: { labels: { k1: '1', k2: '1' } } }, { metadata: { labels: { $patch: 'delete' } } }, { metadata: { labels: {} } }],
    ['delete all items from merging list', containers(c('1'), c('2')), { spec: { containers: [{ $patch: 'replace' }] } }, containers()],
    ['merge empty merging lists', containers(), { spec: { containers: [] } }, containers()],
    [
      'add key and delete all keys from map',
      { spec: { nodeSelector: { name: '1', value: '1' } } },
      { spec: { nodeSelector: { other: 'a', $patch: 'replace' } } },
      { spec: { nodeSelector: { other: 'a' } } },
    ],
    [
      'delete all duplicate entries in a merging list',
      containers(c('1'), c('1'), c('2', { image: 'a' }), c('3'), c('3')),
      { spec: { containers: [{ name: '1', $patch: 'delete' }, { name: '3', $patch: 'delete' }] } },
      containers(c('2', { image: 'a' })),
    ],
    [
      'preserve the order from the patch in a merging list',
      containers(c('1'), c('2', { image: 'b' }), c('3')),
      { spec: { containers: [c('3', { image: 'c' }), c('1', { image: 'a' }), c('2', { workingDir: 'x' })] } },
      containers(c('3', { image: 'c' }), c('1', { image: 'a' }), c('2', { image: 'b', workingDir: 'x' })),
    ],
    [
      'preserve the order from the patch in a merging list 2',
      containers(c('1'), c('2', { image: 'b' }), c('3')),
      { spec: { containers: [c('3', { image: 'c' }), c('1', { image: 'a' })] } },
      containers(c('2', { image: 'b' }), c('3', { image: 'c' }), c('1', { image: 'a' })),
    ],
    ['preserve the order from the patch in a merging int list', finalizers('1', '2', '3'), { metadata: { finalizers: ['3', '1', '2'] } }, finalizers('3', '1', '2')],
    ['preserve the order from the patch in a merging int list 2', finalizers('1', '2', '3'), { metadata: { finalizers: ['3', '1'] } }, finalizers('2', '3', '1')],
    [
      '$setElementOrder contains item that is not present in the list to be merged',
      containers(c('1'), c('3')),
      { spec: { '$setElementOrder/containers': [c('3'), c('2'), c('1')], containers: [c('3', { image: '3' }), c('1', { image: '1' })] } },
      containers(c('3', { image: '3' }), c('1', { image: '1' })),
    ],
    [
      '$setElementOrder contains item that is not present in the int list to be merged',
      finalizers('1', '3'),
      { metadata: { '$setElementOrder/finalizers': ['3', '2', '1'] } },
      finalizers('3', '1'),
    ],
    ['$deleteFromPrimitiveList of nonexistent item', finalizers('1', '2'), { metadata: { '$deleteFromPrimitiveList/finalizers': ['3'] } }, finalizers('1', '2')],
    [
      '$deleteFromPrimitiveList on nonexistent primitive list does not add it',
      { metadata: { labels: { a: 'b' } } },
      { metadata: { '$deleteFromPrimitiveList/finalizers': ['3'] } },
      { metadata: { labels: { a: 'b' } } },
    ],
    ['$deleteFromPrimitiveList deletes from a merge list', finalizers('1', '2', '3'), { metadata: { '$deleteFromPrimitiveList/finalizers': ['2'] } }, finalizers('1', '3')],
    [
      '$deleteFromPrimitiveList deletes from a list without merge strategy',
      containers(c('a', { args: ['1', '2', '3'] })),
      { spec: { containers: [{ name: 'a', '$deleteFromPrimitiveList/args': ['2'] }] } },
      containers(c('a', { args: ['1', '3'] })),
    ],
    [
      'nested patch merge with empty list',
      { metadata: { name: 'hi' }, ...containers(c('hello2')) },
      { spec: { '$setElementOrder/containers': [c('hello'), c('doesntexist')], containers: [c('hello'), { $patch: 'delete', name: 'doesntexist' }] } },
      { metadata: { name: 'hi' }, ...containers(c('hello'), c('hello2')) },
    ],
    [
      'delete items in lists of scalars',
      finalizers('1', '2', '3', '4'),
      { metadata: { '$setElementOrder/finalizers': ['1', '2'], '$deleteFromPrimitiveList/finalizers': ['3'] } },
      finalizers('1', '2', '4'),
    ],
    [
      'delete all duplicate items in lists of scalars',
      finalizers('1', '2', '3', '3', '4'),
      { metadata: { '$setElementOrder/finalizers': ['1', '2'], '$deleteFromPrimitiveList/finalizers': ['3'] } },
      finalizers('1', '2', '4'),
    ],
    [
      'add and delete items in lists of scalars',
      finalizers('1', '2', '3', '4'),
      { metadata: { '$setElementOrder/finalizers': ['1', '2', '4'], '$deleteFromPrimitiveList/finalizers': ['3'] } },
      finalizers('1', '2', '4'),
    ],
    [
      'merge lists of maps',
      containers(c('1', { workingDir: 'a' }), c('2', { image: '2', workingDir: 'b' })),
      { spec: { '$setElementOrder/containers': [c('4'), c('1'), c('2'), c('3')], containers: [c('4', { image: '4' }), c('3', { image: '3' })] } },
      containers(c('4', { image: '4' }), c('1', { workingDir: 'a' }), c('2', { image: '2', workingDir: 'b' }), c('3', { image: '3' })),
    ],
    [
      'add field to map in merging list with conflict',
      containers(c('1', { workingDir: 'a' }), c('3', { image: '2', workingDir: 'b' })),
      { spec: { '$setElementOrder/containers': [c('1'), c('2')], containers: [c('1', { image: '1' }), c('2', { image: '2' })] } },
      containers(c('1', { workingDir: 'a', image: '1' }), c('2', { image: '2' }), c('3', { image: '2', workingDir: 'b' })),
    ],
    [
      'delete map from merging list',
      containers(c('1'), c('2', { workingDir: 'b' })),
      { spec: { '$setElementOrder/containers': [c('2')], containers: [{ name: '1', $patch: 'delete' }] } },
      containers(c('2', { workingDir: 'b' })),
    ],
    [
      'delete missing map from merging list with conflict',
      containers(c('3', { workingDir: 'a' })),
      { spec: { '$setElementOrder/containers': [c('2')], containers: [c('2'), { name: '1', $patch: 'delete' }] } },
      containers(c('2'), c('3', { workingDir: 'a' })),
    ],
    [
      'add map and delete map from merging list',
      containers(c('1'), c('2', { workingDir: 'b' }), c('4', { workingDir: 'c' })),
      { spec: { '$setElementOrder/containers': [c('2'), c('3')], containers: [c('3'), { name: '1', $patch: 'delete' }] } },
      containers(c('2', { workingDir: 'b' }), c('4', { workingDir: 'c' }), c('3')),
    ],
    [
      'add map and delete map from merging list with conflict',
      containers(c('1', { workingDir: 'a' }), c('4', { workingDir: 'c' })),
      { spec: { '$setElementOrder/containers': [c('2'), c('3')], containers: [c('2'), c('3'), { name: '1', $patch: 'delete' }] } },
      containers(c('4', { workingDir: 'c' }), c('2'), c('3')),
    ],
    [
      'delete field from map in merging list',
      containers(c('1', { image: '1', workingDir: 'a' }), c('2', { image: '2', workingDir: 'b' })),
      { spec: { '$setElementOrder/containers': [c('1'), c('2')], containers: [c('1', { image: null })] } },
      containers(c('1', { workingDir: 'a' }), c('2', { image: '2', workingDir: 'b' })),
    ],
    [
      'replace non merging list nested in merging list',
      containers(c('1', { workingDir: 'a', args: ['1', '2'] }), c('2', { workingDir: 'b' })),
      { spec: { '$setElementOrder/containers': [c('1'), c('2')], containers: [c('1', { args: ['1v'] })] } },
      containers(c('1', { workingDir: 'a', args: ['1v'] }), c('2', { workingDir: 'b' })),
    ],
    [
      'defined null values remove original fields',
      { metadata: { labels: { name: 'original-name', value: 'original-value', other: 'current-other' } } },
      { metadata: { labels: { name: 'modified-name', value: null } } },
      { metadata: { labels: { name: 'modified-name', other: 'current-other' } } },
    ],
    ['replace list of scalars (no merge strategy)', containers(c('a', { args: ['1', '2'] })), { spec: { containers: [c('a', { args: ['2', '3'] })] } }, containers(c('a', { args: ['2', '3'] }))],
    [
      'replace list of maps without merge strategy',
      { spec: { tolerations: [{ key: 'a' }, { key: 'b' }] } },
      { spec: { tolerations: [{ key: 'c', operator: 'Exists' }] } },
      { spec: { tolerations: [{ key: 'c', operator: 'Exists' }] } },
    ],
  ])('%s', (_name, current, patch, result) => {
    expect(applyStrategicMergePatch(current, patch, 'Pod')).toEqual(result);
  });
});

interface Container {
  name: string;
  image?: string;
  ports?: { containerPort: number; protocol?: string; name?: string }[];
  env?: { name: string; value: string }[];
  resources?: object;
  imagePullPolicy?: string;
}

describe('applyStrategicMergePatch: kubectl payloads on a Deployment', () => {
  const app: Container = {
    name: 'app',
    image: 'app:1',
    ports: [
      { containerPort: 80, protocol: 'TCP' },
      { containerPort: 9090, protocol: 'TCP' },
    ],
    env: [{ name: 'A', value: '1' }],
    resources: {},
    imagePullPolicy: 'IfNotPresent',
  };
  const sidecar: Container = { name: 'sidecar', image: 'side:1', resources: {}, imagePullPolicy: 'IfNotPresent' };
  const live = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'default',
      uid: 'u-1',
      resourceVersion: '7',
      generation: 3,
      labels: { app: 'web', tier: 'fe' } as Record<string, string>,
      annotations: { 'deployment.kubernetes.io/revision': '2', 'kubectl.kubernetes.io/last-applied-configuration': '{"old":true}' },
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web', tier: 'fe' } as Record<string, string> },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: {
        metadata: { labels: { app: 'web', tier: 'fe' } as Record<string, string> },
        spec: { containers: [app, sidecar], restartPolicy: 'Always', dnsPolicy: 'ClusterFirst' },
      },
    },
    status: {
      replicas: 2,
      conditions: [
        { type: 'Available', status: 'True' },
        { type: 'Progressing', status: 'True' },
      ],
    },
  };
  type Deployment = typeof live;
  const edit = (fn: (d: Deployment) => void): Deployment => {
    const d = structuredClone(live);
    fn(d);
    return d;
  };

  it('kubectl apply: new image in one of two containers, env var added, port removed, selector and labels changed', () => {
    const patch = {
      metadata: {
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"new":true}' },
        labels: { tier: null },
      },
      spec: {
        selector: { matchLabels: { app: 'web-v2', tier: null } },
        template: {
          metadata: { labels: { app: 'web-v2', tier: null } },
          spec: {
            '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }],
            containers: [
              {
                name: 'app',
                image: 'app:2',
                '$setElementOrder/env': [{ name: 'A' }, { name: 'B' }],
                env: [{ name: 'B', value: '2' }],
                '$setElementOrder/ports': [{ containerPort: 80 }],
                ports: [{ $patch: 'delete', containerPort: 9090 }],
              },
            ],
          },
        },
      },
    };
    expect(applyStrategicMergePatch(live, patch, 'Deployment')).toEqual(
      edit((d) => {
        d.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'] = '{"new":true}';
        d.metadata.labels = { app: 'web' };
        d.spec.selector.matchLabels = { app: 'web-v2' };
        d.spec.template.metadata.labels = { app: 'web-v2' };
        const [a] = d.spec.template.spec.containers;
        a.image = 'app:2';
        a.env = [{ name: 'A', value: '1' }, { name: 'B', value: '2' }];
        a.ports = [{ containerPort: 80, protocol: 'TCP' }];
      }),
    );
  });

  it.each<[string, Obj, (d: Deployment) => void]>([
    ["kubectl scale's merge body", { spec: { replicas: 3 } }, (d) => (d.spec.replicas = 3)],
    [
      'kubectl rollout restart',
      { spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': '2025-01-02T03:04:05Z' } } } } },
      (d) => Object.assign(d.spec.template.metadata, { annotations: { 'kubectl.kubernetes.io/restartedAt': '2025-01-02T03:04:05Z' } }),
    ],
    [
      'kubectl set image app=app:3',
      { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }], containers: [{ image: 'app:3', name: 'app' }] } } } },
      (d) => (d.spec.template.spec.containers[0].image = 'app:3'),
    ],
    [
      'kubectl apply reordering containers only',
      { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'app' }] } } } },
      (d) => d.spec.template.spec.containers.reverse(),
    ],
    [
      'kubectl edit removing the last env var (env: null)',
      { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }], containers: [{ env: null, name: 'app' }] } } } },
      (d) => delete d.spec.template.spec.containers[0].env,
    ],
    [
      'kubectl label (merge body, valid strategic patch too)',
      { metadata: { labels: { env: 'prod', tier: null } } },
      (d) => (d.metadata.labels = { app: 'web', env: 'prod' }),
    ],
    [
      'kubectl patch adding a sidecar without $setElementOrder: kube puts the new element first',
      { spec: { template: { spec: { containers: [{ name: 'logger', image: 'log:1' }] } } } },
      (d) => d.spec.template.spec.containers.unshift({ name: 'logger', image: 'log:1' }),
    ],
    [
      'kubectl patch a container port by containerPort',
      { spec: { template: { spec: { containers: [{ name: 'app', ports: [{ containerPort: 9090, name: 'metrics' }] }] } } } },
      (d) => Object.assign(d.spec.template.spec.containers[0].ports![1], { name: 'metrics' }),
    ],
    [
      '$patch: delete on a list element',
      { spec: { template: { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }] } } } },
      (d) => d.spec.template.spec.containers.pop(),
    ],
    [
      '$patch: replace on a map (spec.selector)',
      { spec: { selector: { $patch: 'replace', matchLabels: { app: 'other' } } } },
      (d) => (d.spec.selector = { matchLabels: { app: 'other' } } as Deployment['spec']['selector']),
    ],
    [
      '$retainKeys: kubectl apply switching the strategy to Recreate',
      { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: null, type: 'Recreate' } } },
      (d) => (d.spec.strategy = { type: 'Recreate' } as Deployment['spec']['strategy']),
    ],
    [
      'status.conditions merge by type (kubectl patch --subresource=status)',
      { status: { conditions: [{ type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable' }] } },
      (d) => Object.assign(d.status.conditions[0], { status: 'False', reason: 'MinimumReplicasUnavailable' }),
    ],
    [
      'tolerations are atomic',
      { spec: { template: { spec: { tolerations: [{ key: 'gpu', operator: 'Exists' }] } } } },
      (d) => Object.assign(d.spec.template.spec, { tolerations: [{ key: 'gpu', operator: 'Exists' }] }),
    ],
    ['a null patch changes nothing', null as unknown as Obj, () => undefined],
  ])('%s', (_name, patch, fn) => {
    expect(applyStrategicMergePatch(live, patch, 'Deployment')).toEqual(edit(fn));
  });

  it('never mutates the live object or the patch', () => {
    const before = structuredClone(live);
    const patch = {
      spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'app' }], containers: [{ name: 'app', image: 'x' }] } } },
    };
    const patchBefore = structuredClone(patch);
    applyStrategicMergePatch(live, patch, 'Deployment');
    expect(live).toEqual(before);
    expect(patch).toEqual(patchBefore);
  });
});

describe('applyStrategicMergePatch: other kinds and fields', () => {
  const podWith = (spec: Obj, metadata: Obj = { name: 'p' }) => ({ apiVersion: 'v1', kind: 'Pod', metadata, spec });

  it.each<[string, string, Obj, Obj, Obj]>([
    [
      'Service ports merge by port',
      'Service',
      { spec: { ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] } },
      { spec: { ports: [{ port: 80, targetPort: 9090 }] } },
      { spec: { ports: [{ name: 'http', port: 80, targetPort: 9090, protocol: 'TCP' }] } },
    ],
    [
      'a new Service port goes first without $setElementOrder',
      'Service',
      { spec: { ports: [{ name: 'http', port: 80 }] } },
      { spec: { ports: [{ name: 'https', port: 443 }] } },
      { spec: { ports: [{ name: 'https', port: 443 }, { name: 'http', port: 80 }] } },
    ],
    [
      'a new Service port goes where $setElementOrder says',
      'Service',
      { spec: { ports: [{ name: 'http', port: 80 }] } },
      { spec: { '$setElementOrder/ports': [{ port: 80 }, { port: 443 }], ports: [{ name: 'https', port: 443 }] } },
      { spec: { ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }] } },
    ],
    [
      'volumes: $retainKeys swaps the volume source',
      'Pod',
      podWith({ volumes: [{ name: 'data', emptyDir: {} }, { name: 'cfg', configMap: { name: 'c' } }] }),
      {
        spec: {
          '$setElementOrder/volumes': [{ name: 'data' }, { name: 'cfg' }],
          volumes: [{ $retainKeys: ['name', 'persistentVolumeClaim'], name: 'data', emptyDir: null, persistentVolumeClaim: { claimName: 'pvc' } }],
        },
      },
      podWith({ volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'pvc' } }, { name: 'cfg', configMap: { name: 'c' } }] }),
    ],
    [
      'volumeMounts merge by mountPath, imagePullSecrets by name',
      'Pod',
      podWith({ containers: [{ name: 'a', volumeMounts: [{ name: 'v', mountPath: '/data' }] }], imagePullSecrets: [{ name: 'r1' }] }),
      { spec: { containers: [{ name: 'a', volumeMounts: [{ mountPath: '/data', readOnly: true }] }], imagePullSecrets: [{ name: 'r2' }] } },
      podWith({ containers: [{ name: 'a', volumeMounts: [{ name: 'v', mountPath: '/data', readOnly: true }] }], imagePullSecrets: [{ name: 'r2' }, { name: 'r1' }] }),
    ],
    [
      'ownerReferences merge by uid',
      'Pod',
      podWith({}, { name: 'p', ownerReferences: [{ uid: 'u1', kind: 'ReplicaSet', name: 'rs' }] }),
      { metadata: { ownerReferences: [{ uid: 'u1', controller: true }] } },
      podWith({}, { name: 'p', ownerReferences: [{ uid: 'u1', kind: 'ReplicaSet', name: 'rs', controller: true }] }),
    ],
    [
      'kubectl apply removing one finalizer',
      'Pod',
      podWith({}, { name: 'p', finalizers: ['example.com/a', 'example.com/b', 'kubernetes'] }),
      { metadata: { '$setElementOrder/finalizers': ['example.com/a'], '$deleteFromPrimitiveList/finalizers': ['example.com/b'] } },
      podWith({}, { name: 'p', finalizers: ['example.com/a', 'kubernetes'] }),
    ],
    [
      'a new container is stored without nulls or directives',
      'Pod',
      podWith({ containers: [{ name: 'a' }] }),
      {
        spec: {
          containers: [{ name: 'b', image: 'b:1', resources: null, '$setElementOrder/env': [{ name: 'X' }], env: [{ name: 'X', value: '1', valueFrom: null }] }],
        },
      },
      podWith({ containers: [{ name: 'b', image: 'b:1', env: [{ name: 'X', value: '1' }] }, { name: 'a' }] }),
    ],
    [
      'a new field whose value is a $patch directive is not stored',
      'Pod',
      podWith({}),
      { spec: { nodeSelector: { $patch: 'delete' }, affinity: { nodeAffinity: { $patch: 'replace', x: 1 } } } },
      podWith({ affinity: {} }),
    ],
    ...(['StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job'] as const).map(
      (kind): [string, string, Obj, Obj, Obj] => [
        `${kind} pod template containers merge by name`,
        kind,
        { spec: { template: { spec: { containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1' }] } } } },
        { spec: { template: { spec: { containers: [{ name: 'b', env: [{ name: 'X', value: '1' }] }] } } } },
        { spec: { template: { spec: { containers: [{ name: 'a', image: 'a:1' }, { name: 'b', image: 'b:1', env: [{ name: 'X', value: '1' }] }] } } } },
      ],
    ),
    [
      'CronJob job template containers merge by name',
      'CronJob',
      { spec: { jobTemplate: { spec: { template: { spec: { containers: [{ name: 'a', image: 'a:1' }] } } } } } },
      { spec: { jobTemplate: { spec: { template: { spec: { containers: [{ name: 'a', image: 'a:2' }] } } } } } },
      { spec: { jobTemplate: { spec: { template: { spec: { containers: [{ name: 'a', image: 'a:2' }] } } } } } },
    ],
    [
      'unknown kinds: lists replace, maps merge, metadata still merges',
      'Widget',
      { metadata: { finalizers: ['a'], labels: { x: '1' } }, spec: { containers: [{ name: 'a' }, { name: 'b' }] } },
      { metadata: { finalizers: ['b'], labels: { y: '2' } }, spec: { containers: [{ name: 'b', image: 'b:2' }] } },
      { metadata: { finalizers: ['b', 'a'], labels: { x: '1', y: '2' } }, spec: { containers: [{ name: 'b', image: 'b:2' }] } },
    ],
    [
      'a list unknown to the table merges when $setElementOrder names its merge key',
      'Widget',
      { spec: { items: [{ id: 'a', v: 1 }, { id: 'b', v: 2 }] } },
      { spec: { '$setElementOrder/items': [{ id: 'a' }, { id: 'b' }], items: [{ id: 'b', v: 3 }] } },
      { spec: { items: [{ id: 'a', v: 1 }, { id: 'b', v: 3 }] } },
    ],
  ])('%s', (_name, kind, current, patch, result) => {
    expect(applyStrategicMergePatch(current, patch, kind)).toEqual(result);
  });

  it('keeps a "__proto__" member as data', () => {
    const out = applyStrategicMergePatch({}, JSON.parse('{"__proto__":{"polluted":true}}'), 'Pod') as object;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__']);
  });
});

describe('applyStrategicMergePatch: errors', () => {
  const pod = { spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b' }] }, metadata: { labels: { a: 'b' }, finalizers: [] } };

  it.each<[string, Obj, number, string]>([
    ['a malformed $setElementOrder key', { spec: { $setElementOrder: [] } }, 400, 'invalid patch format of setElementOrder list'],
    ['a $setElementOrder key with the wrong prefix', { spec: { '$setElementOrderX/containers': [] } }, 400, 'invalid patch format of setElementOrder list'],
    ['a malformed $deleteFromPrimitiveList key', { metadata: { $deleteFromPrimitiveList: ['x'] } }, 400, 'invalid patch format of primitive list'],
    ['$retainKeys that is not a list', { metadata: { $retainKeys: 'labels' } }, 400, 'invalid patch format of retainKeys'],
    ['a patch key missing from $retainKeys', { metadata: { $retainKeys: ['labels'], annotations: { x: 'y' } } }, 400, 'invalid patch format of retainKeys'],
    ['$patch: merge on a map', { metadata: { labels: { $patch: 'merge', a: 'c' } } }, 500, 'unknown patch type: merge in map: map[$patch:merge a:c]'],
    ['an unknown $patch on a list element', { spec: { containers: [{ name: 'a', $patch: 'bogus' }] } }, 500, 'unknown patch type: bogus in map: map[$patch:bogus name:a]'],
    ['$patch: merge on a list element', { spec: { containers: [{ $patch: 'merge' }] } }, 500, 'merging lists cannot yet be specified in the patch'],
    ['a list element without its merge key', { spec: { containers: [{ image: 'y' }] } }, 500, 'map: map[image:y] does not contain declared merge key: name'],
    ['$patch: delete without the merge key', { spec: { containers: [{ $patch: 'delete', image: 'x' }] } }, 500, 'map: map[$patch:delete image:x] does not contain declared merge key: name'],
    [
      'a $setElementOrder that disagrees with the patch list',
      { spec: { '$setElementOrder/containers': [{ name: 'a' }, { name: 'b' }], containers: [{ name: 'b', image: 'y' }, { name: 'a', image: 'z' }] } },
      500,
      "the order in patch list:\n[map[image:y name:b] map[image:z name:a]]\n doesn't match $setElementOrder list:\n[map[name:a] map[name:b]]",
    ],
    ['a $setElementOrder that is not a list', { spec: { '$setElementOrder/containers': 'a' } }, 500, 'expected a []interface {}, but received a string'],
    ['mixed element kinds', { spec: { containers: ['x'] } }, 500, 'list element types are not identical: [[map[image:x name:a] map[name:b]] [x]]'],
    ['a list of lists', { metadata: { finalizers: [['x']] } }, 422, 'the server rejected our request due to an error in our request'],
  ])('%s', (_name, patch, code, message) => {
    const err = failure(pod, patch);
    expect(err.code).toBe(code);
    expect(err.message).toBe(message);
  });

  it('a list of lists keeps the Go text as the detail of the generic 422', () => {
    expect(failure(pod, { metadata: { finalizers: [['x']] } }).detail).toBe('lists of lists are not supported');
  });

  it.each([
    ['an array', [{ spec: {} }], 'json: cannot unmarshal array into Go value of type map[string]interface {}'],
    ['a string', 'spec', 'json: cannot unmarshal string into Go value of type map[string]interface {}'],
  ])('a body that is %s is a 400 with the bare Go error', (_name, patch, message) => {
    const err = failure(pod, patch);
    expect(err.code).toBe(400);
    expect(err.toStatus()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code: 400 });
  });

  it('a 500 Status has no reason, as StatusReasonUnknown is empty', () => {
    expect(failure(pod, { spec: { containers: [{ image: 'y' }] } }).toStatus()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'map: map[image:y] does not contain declared merge key: name',
      code: 500,
    });
  });
});
