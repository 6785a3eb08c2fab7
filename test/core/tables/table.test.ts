import { describe, expect, it } from 'vitest';
import { toTable } from '../../../core/tables/table';
import { lookupGroupResource, type ResourceType } from '../../../core/registry';

const NOW = Date.parse('2026-07-01T12:00:00Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();
const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

function type(gr: string): ResourceType {
  const t = lookupGroupResource(gr);
  if (!t) throw new Error(`no type ${gr}`);
  return t;
}

function meta(name: string, extra: Record<string, unknown> = {}) {
  return { name, namespace: 'default', creationTimestamp: ago(5 * M), resourceVersion: '7', ...extra };
}

/** The cells of a single-object table, keyed by column name. */
function cells(gr: string, obj: object): Record<string, unknown> {
  const table = toTable(type(gr), [obj], { now: NOW });
  return Object.fromEntries(table.columnDefinitions!.map((c, i) => [c.name, table.rows[0].cells[i]]));
}

describe('toTable columns', () => {
  it.each([
    ['core/pods', ['Name', 'Ready', 'Status', 'Restarts', 'Age'], ['IP', 'Node', 'Nominated Node', 'Readiness Gates']],
    ['apps/deployments', ['Name', 'Ready', 'Up-to-date', 'Available', 'Age'], ['Containers', 'Images', 'Selector']],
    ['apps/replicasets', ['Name', 'Desired', 'Current', 'Ready', 'Age'], ['Containers', 'Images', 'Selector']],
    ['apps/statefulsets', ['Name', 'Ready', 'Age'], ['Containers', 'Images']],
    ['apps/daemonsets', ['Name', 'Desired', 'Current', 'Ready', 'Up-to-date', 'Available', 'Node Selector', 'Age'],
      ['Containers', 'Images', 'Selector']],
    ['batch/jobs', ['Name', 'Status', 'Completions', 'Duration', 'Age'], ['Containers', 'Images', 'Selector']],
    ['core/services', ['Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age'], ['Selector']],
    ['core/nodes', ['Name', 'Status', 'Roles', 'Age', 'Version'],
      ['Internal-IP', 'External-IP', 'OS-Image', 'Kernel-Version', 'Container-Runtime']],
    ['core/namespaces', ['Name', 'Status', 'Age'], []],
    ['core/configmaps', ['Name', 'Data', 'Age'], []],
    ['core/secrets', ['Name', 'Type', 'Data', 'Age'], []],
    ['core/serviceaccounts', ['Name', 'Secrets', 'Age'], []],
    ['core/endpoints', ['Name', 'Endpoints', 'Age'], []],
    ['core/events', ['Last Seen', 'Type', 'Reason', 'Object', 'Message'], ['Subobject', 'Source', 'First Seen', 'Count', 'Name']],
    ['coordination.k8s.io/leases', ['Name', 'Holder', 'Age'], []],
    ['discovery.k8s.io/endpointslices', ['Name', 'AddressType', 'Ports', 'Endpoints', 'Age'], []],
  ])('%s shows %j, and %j with -o wide', (gr, normal, wideOnly) => {
    const defs = toTable(type(gr), [], { now: NOW }).columnDefinitions!;
    expect(defs.filter((c) => c.priority === 0).map((c) => c.name)).toEqual(normal);
    expect(defs.filter((c) => c.priority === 1).map((c) => c.name)).toEqual(wideOnly);
  });

  it('gives every column definition all five fields, Name with format "name"', () => {
    const defs = toTable(type('core/pods'), [], { now: NOW }).columnDefinitions!;
    for (const d of defs) expect(Object.keys(d).sort()).toEqual(['description', 'format', 'name', 'priority', 'type']);
    expect(defs[0]).toMatchObject({ name: 'Name', type: 'string', format: 'name', priority: 0 });
    expect(defs[0].description).toMatch(/^Name must be unique within a namespace/);
  });

  it('falls back to the default Name / Created At table for types without printers', () => {
    const widgets = { ...type('coordination.k8s.io/leases'), group: 'example.com', resource: 'widgets', kind: 'Widget' };
    const table = toTable(widgets, [{ metadata: meta('w1', { creationTimestamp: '2026-07-01T11:00:00.000Z' }) }], { now: NOW });
    expect(table.columnDefinitions!.map((c) => [c.name, c.type, c.format])).toEqual([
      ['Name', 'string', 'name'],
      ['Created At', 'date', ''],
    ]);
    expect(table.rows[0].cells).toEqual(['w1', '2026-07-01T11:00:00Z']);
  });
});

describe('Age (duration.HumanDuration)', () => {
  it.each([
    [0, '0s'],
    [-1500, '0s'],
    [-3 * S, '<invalid>'],
    [5 * S, '5s'],
    [119 * S, '119s'],
    [2 * M, '2m'],
    [3 * M + 2 * S, '3m2s'],
    [10 * M + 30 * S, '10m'],
    [179 * M, '179m'],
    [3 * H, '3h'],
    [7 * H + 59 * M, '7h59m'],
    [8 * H + 30 * M, '8h'],
    [47 * H, '47h'],
    [2 * D + 3 * H, '2d3h'],
    [7 * D + 23 * H, '7d23h'],
    [8 * D + 5 * H, '8d'],
    [729 * D, '729d'],
    [730 * D, '2y'],
    [740 * D, '2y10d'],
    [8 * 365 * D, '8y'],
  ])('shows %i ms as %s', (ms, age) => {
    expect(cells('core/configmaps', { metadata: meta('c', { creationTimestamp: ago(ms) }) }).Age).toBe(age);
  });

  it('shows <unknown> without a creationTimestamp', () => {
    expect(cells('core/configmaps', { metadata: { name: 'c' } }).Age).toBe('<unknown>');
  });
});

const running = { running: { startedAt: ago(4 * M) } };

describe('pods', () => {
  it.each([
    ['a running ready pod', {
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }],
        containerStatuses: [{ name: 'a', ready: true, restartCount: 0, state: running }] },
    }, { Ready: '1/1', Status: 'Running', Restarts: '0' }],
    ['a pending pod pulling its image', {
      status: { phase: 'Pending', containerStatuses: [{ name: 'a', ready: false, restartCount: 0,
        state: { waiting: { reason: 'ContainerCreating' } } }] },
    }, { Ready: '0/1', Status: 'ContainerCreating', Restarts: '0' }],
    ['a crash-looping pod', {
      status: { phase: 'Running', containerStatuses: [{ name: 'a', ready: false, restartCount: 4,
        state: { waiting: { reason: 'CrashLoopBackOff' } },
        lastState: { terminated: { exitCode: 1, finishedAt: ago(30 * S) } } }] },
    }, { Ready: '0/1', Status: 'CrashLoopBackOff', Restarts: '4 (30s ago)' }],
    ['a pod waiting on its first init container', {
      spec: { initContainers: [{ name: 'i' }], containers: [{ name: 'a' }] },
      status: { phase: 'Pending', initContainerStatuses: [{ name: 'i', restartCount: 0, state: running }] },
    }, { Ready: '0/1', Status: 'Init:0/1' }],
    ['a pod whose init container failed', {
      spec: { initContainers: [{ name: 'i' }], containers: [{ name: 'a' }] },
      status: { phase: 'Pending', initContainerStatuses: [{ name: 'i', restartCount: 2,
        state: { terminated: { exitCode: 1, reason: 'Error' } } }] },
    }, { Status: 'Init:Error', Restarts: '2' }],
    ['a pod with a started sidecar', {
      spec: { initContainers: [{ name: 's', restartPolicy: 'Always' }], containers: [{ name: 'a' }] },
      status: { phase: 'Running', conditions: [{ type: 'Initialized', status: 'True' }],
        initContainerStatuses: [{ name: 's', ready: true, started: true, restartCount: 1, state: running }],
        containerStatuses: [{ name: 'a', ready: true, restartCount: 0, state: running }] },
    }, { Ready: '2/2', Status: 'Running', Restarts: '1' }],
    ['a completed pod', {
      status: { phase: 'Succeeded', containerStatuses: [{ name: 'a', ready: false, restartCount: 0,
        state: { terminated: { exitCode: 0, reason: 'Completed' } } }] },
    }, { Ready: '0/1', Status: 'Completed' }],
    ['a container killed by a signal', {
      status: { phase: 'Failed', containerStatuses: [{ name: 'a', restartCount: 0, state: { terminated: { exitCode: 137, signal: 9 } } }] },
    }, { Status: 'Signal:9' }],
    ['a scheduling-gated pod', {
      status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] },
    }, { Status: 'SchedulingGated' }],
    ['a pod being deleted', {
      metadata: meta('p', { deletionTimestamp: ago(0) }),
      status: { phase: 'Running', containerStatuses: [{ name: 'a', ready: true, restartCount: 0, state: running }] },
    }, { Status: 'Terminating' }],
    ['an evicted pod', { status: { phase: 'Failed', reason: 'Evicted' } }, { Status: 'Evicted' }],
  ])('shows %s', (_, partial, expected) => {
    const pod = { metadata: meta('p'), spec: { containers: [{ name: 'a', image: 'nginx' }] }, ...partial };
    expect(cells('core/pods', pod)).toMatchObject({ Name: 'p', Age: '5m', ...expected });
  });

  it.each([
    ['an unscheduled pod', {}, { IP: '<none>', Node: '<none>', 'Nominated Node': '<none>', 'Readiness Gates': '<none>' }],
    ['a pod with podIPs and readiness gates', {
      spec: { containers: [], nodeName: 'n1', readinessGates: [{ conditionType: 'x' }, { conditionType: 'y' }] },
      status: { podIPs: [{ ip: '10.0.0.5' }], nominatedNodeName: 'n2', conditions: [{ type: 'x', status: 'True' }] },
    }, { IP: '10.0.0.5', Node: 'n1', 'Nominated Node': 'n2', 'Readiness Gates': '1/2' }],
    ['a pod with only podIP', { status: { podIP: '10.0.0.6' } }, { IP: '10.0.0.6' }],
  ])('fills the wide columns for %s', (_, partial, expected) => {
    expect(cells('core/pods', { metadata: meta('p'), spec: { containers: [] }, ...partial })).toMatchObject(expected);
  });

  it.each([
    ['Succeeded', [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }]],
    ['Failed', [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }]],
    ['Running', undefined],
  ])('marks a %s pod row with conditions %j', (phase, conditions) => {
    const table = toTable(type('core/pods'), [{ metadata: meta('p'), status: { phase } }], { now: NOW });
    expect(table.rows[0].conditions).toEqual(conditions);
  });
});

const template = { spec: { containers: [{ name: 'web', image: 'nginx:1' }, { name: 'log', image: 'busybox' }] } };

describe('workloads', () => {
  it.each([
    ['apps/deployments', { spec: { replicas: 3, selector: { matchLabels: { app: 'web', tier: 'fe' } }, template },
      status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 } },
    { Ready: '2/3', 'Up-to-date': 3, Available: 2, Containers: 'web,log', Images: 'nginx:1,busybox', Selector: 'app=web,tier=fe' }],
    ['apps/deployments', { spec: { template } }, { Ready: '0/1', 'Up-to-date': 0, Available: 0, Selector: '' }],
    ['apps/deployments', { spec: { selector: { matchExpressions: [{ key: 'a', operator: 'Bogus' }] }, template } },
      { Selector: '<invalid>' }],
    ['apps/replicasets', { spec: { replicas: 2, selector: { matchExpressions: [
      { key: 'tier', operator: 'NotIn', values: ['b', 'a'] }, { key: 'app', operator: 'Exists' }] }, template },
    status: { replicas: 2, readyReplicas: 1 } },
    { Desired: 2, Current: 2, Ready: 1, Selector: 'app,tier notin (a,b)' }],
    ['apps/replicasets', { spec: { selector: {}, template } }, { Desired: 1, Current: 0, Selector: '<none>' }],
    ['apps/replicasets', { spec: { selector: { matchExpressions: [{ key: 'x', operator: 'In', values: [] }] }, template } },
      { Selector: '<error>' }],
    ['apps/statefulsets', { spec: { replicas: 3, template }, status: { readyReplicas: 3 } }, { Ready: '3/3', Containers: 'web,log' }],
    ['apps/daemonsets', { spec: { selector: { matchLabels: { k: 'v' } },
      template: { spec: { ...template.spec, nodeSelector: { 'kubernetes.io/os': 'linux', disk: 'ssd' } } } },
    status: { desiredNumberScheduled: 3, currentNumberScheduled: 3, numberReady: 2, updatedNumberScheduled: 3, numberAvailable: 2 } },
    { Desired: 3, Current: 3, Ready: 2, 'Up-to-date': 3, Available: 2, 'Node Selector': 'disk=ssd,kubernetes.io/os=linux',
      Selector: 'k=v' }],
    ['apps/daemonsets', { spec: { template } }, { Desired: 0, 'Node Selector': '<none>', Selector: '<none>' }],
  ])('%s shows %j', (gr, partial, expected) => {
    expect(cells(gr, { metadata: meta('w'), ...partial })).toMatchObject(expected);
  });

  it.each([
    ['a running job', { spec: { completions: 3, template }, status: { succeeded: 1, startTime: ago(90 * S) } },
      { Status: 'Running', Completions: '1/3', Duration: '90s' }],
    ['a complete job', { spec: { completions: 1, template }, status: { succeeded: 1, startTime: ago(4 * M),
      completionTime: ago(M), conditions: [{ type: 'Complete', status: 'True' }] } },
    { Status: 'Complete', Completions: '1/1', Duration: '3m' }],
    ['a failed parallel job', { spec: { parallelism: 4, template }, status: { conditions: [
      { type: 'FailureTarget', status: 'True' }, { type: 'Failed', status: 'True' }] } },
    { Status: 'Failed', Completions: '0/1 of 4', Duration: '' }],
    ['a suspended job', { spec: { template }, status: { conditions: [{ type: 'Suspended', status: 'True' }] } },
      { Status: 'Suspended', Completions: '0/1' }],
    ['a job being deleted', { metadata: meta('j', { deletionTimestamp: ago(0) }), spec: { template } }, { Status: 'Terminating' }],
  ])('jobs: shows %s', (_, partial, expected) => {
    expect(cells('batch/jobs', { metadata: meta('j'), ...partial })).toMatchObject(expected);
  });
});

describe('services', () => {
  it.each([
    ['a ClusterIP service', { type: 'ClusterIP', clusterIPs: ['10.96.0.10'], ports: [{ port: 53, protocol: 'UDP' },
      { port: 53, protocol: 'TCP' }], selector: { 'k8s-app': 'kube-dns' } },
    { Type: 'ClusterIP', 'Cluster-IP': '10.96.0.10', 'External-IP': '<none>', 'Port(s)': '53/UDP,53/TCP', Selector: 'k8s-app=kube-dns' }],
    ['a NodePort service', { type: 'NodePort', clusterIP: '10.96.0.11', ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }] },
      { 'Cluster-IP': '10.96.0.11', 'Port(s)': '80:30080/TCP', Selector: '<none>' }],
    ['a pending LoadBalancer', { type: 'LoadBalancer', clusterIPs: ['10.96.0.12'], ports: [] },
      { 'External-IP': '<pending>', 'Port(s)': '<none>' }],
    ['an ExternalName service', { type: 'ExternalName', externalName: 'db.example.com' },
      { Type: 'ExternalName', 'Cluster-IP': '<none>', 'External-IP': 'db.example.com' }],
    ['a headless service', { clusterIPs: ['None'], ports: [{ port: 80 }] }, { Type: 'ClusterIP', 'Cluster-IP': 'None', 'Port(s)': '80/TCP' }],
  ])('shows %s', (_, spec, expected) => {
    expect(cells('core/services', { metadata: meta('s'), spec })).toMatchObject(expected);
  });

  it('lists load-balancer addresses sorted, then external IPs', () => {
    const svc = { metadata: meta('s'), spec: { type: 'LoadBalancer', externalIPs: ['9.9.9.9'] },
      status: { loadBalancer: { ingress: [{ ip: '5.6.7.8' }, { hostname: 'lb.example.com' }, { ip: '1.2.3.4' }] } } };
    expect(cells('core/services', svc)['External-IP']).toBe('1.2.3.4,5.6.7.8,lb.example.com,9.9.9.9');
  });
});

describe('nodes', () => {
  it.each([
    ['a ready control-plane node', { labels: { 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/role': 'master' } },
      { conditions: [{ type: 'Ready', status: 'True' }] }, {}, { Status: 'Ready', Roles: 'control-plane,master' }],
    ['a cordoned not-ready worker', {}, { conditions: [{ type: 'Ready', status: 'False' }] }, { unschedulable: true },
      { Status: 'NotReady,SchedulingDisabled', Roles: '<none>' }],
    ['a node with no conditions', {}, {}, {}, { Status: 'Unknown' }],
  ])('shows %s', (_, metaExtra, status, spec, expected) => {
    expect(cells('core/nodes', { metadata: meta('n', metaExtra), spec, status })).toMatchObject(expected);
  });

  it('fills version, addresses and node info', () => {
    const node = { metadata: meta('n'), status: { addresses: [{ type: 'Hostname', address: 'n' }, { type: 'InternalIP', address: '10.0.0.1' }],
      nodeInfo: { kubeletVersion: 'v1.32.0', osImage: 'Ubuntu', kernelVersion: '6.8', containerRuntimeVersion: '' } } };
    expect(cells('core/nodes', node)).toMatchObject({
      Version: 'v1.32.0', 'Internal-IP': '10.0.0.1', 'External-IP': '<none>', 'OS-Image': 'Ubuntu',
      'Kernel-Version': '6.8', 'Container-Runtime': '<unknown>',
    });
  });
});

describe('small core types', () => {
  it.each([
    ['core/namespaces', { status: { phase: 'Active' } }, { Status: 'Active' }],
    ['core/configmaps', { data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } }, { Data: 3 }],
    ['core/configmaps', {}, { Data: 0 }],
    ['core/secrets', { type: 'Opaque', data: { u: 'dQ==' } }, { Type: 'Opaque', Data: 1 }],
    ['core/serviceaccounts', { secrets: [{ name: 'tok' }] }, { Secrets: 1 }],
    ['core/serviceaccounts', {}, { Secrets: 0 }],
    ['core/endpoints', {}, { Endpoints: '<none>' }],
    ['core/endpoints', { subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: 'fd00::1' }], ports: [{ port: 80 }, { port: 443 }] }] },
      { Endpoints: '10.0.0.1:80,[fd00::1]:80,10.0.0.1:443 + 1 more...' }],
    ['core/endpoints', { subsets: [{ addresses: [{ ip: '10.0.0.9' }] }] }, { Endpoints: '10.0.0.9' }],
    ['discovery.k8s.io/endpointslices', { addressType: 'IPv4', ports: [{ port: 80 }, { name: 'http' }, {}],
      endpoints: [{ addresses: ['10.0.0.1'] }, { addresses: ['10.0.0.2', '10.0.0.3', '10.0.0.4'] }] },
    { AddressType: 'IPv4', Ports: '80,http,*', Endpoints: '10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...' }],
    ['discovery.k8s.io/endpointslices', { addressType: 'IPv6' }, { Ports: '<unset>', Endpoints: '<unset>' }],
    ['coordination.k8s.io/leases', { spec: { holderIdentity: 'node-1' } }, { Holder: 'node-1' }],
    ['coordination.k8s.io/leases', { spec: {} }, { Holder: '' }],
  ])('%s shows %j', (gr, partial, expected) => {
    expect(cells(gr, { metadata: meta('x'), ...partial })).toMatchObject({ Name: 'x', ...expected });
  });
});

describe('events', () => {
  it.each([
    ['a core event', { type: 'Warning', reason: 'BackOff', message: ' Back-off restarting \n', count: 7,
      firstTimestamp: ago(D), lastTimestamp: ago(2 * M), source: { component: 'kubelet', host: 'node-1' },
      involvedObject: { kind: 'Pod', name: 'web-1', fieldPath: 'spec.containers{web}' } },
    { 'Last Seen': '2m', Type: 'Warning', Reason: 'BackOff', Object: 'pod/web-1', Subobject: 'spec.containers{web}',
      Source: 'kubelet, node-1', Message: 'Back-off restarting', 'First Seen': '24h', Count: 7, Name: 'e' }],
    ['an events.k8s.io singleton', { eventTime: ago(30 * S), reportingComponent: 'scheduler', involvedObject: { kind: 'Node' } },
      { 'Last Seen': '30s', 'First Seen': '30s', Count: 1, Object: 'node', Source: 'scheduler' }],
    ['a series event', { eventTime: ago(H), series: { count: 12, lastObservedTime: ago(10 * S) }, involvedObject: { kind: 'Pod', name: 'p' } },
      { 'Last Seen': '10s', 'First Seen': '60m', Count: 12 }],
  ])('shows %s', (_, partial, expected) => {
    expect(cells('core/events', { metadata: meta('e'), ...partial })).toMatchObject(expected);
  });
});

describe('toTable envelope', () => {
  const obj = {
    apiVersion: 'v1', kind: 'ConfigMap',
    metadata: meta('c', { uid: 'u1', labels: { a: 'b' }, managedFields: [{ manager: 'kubectl' }] }),
    data: { k: 'v' },
  };

  it.each([
    ['Metadata (the default)', undefined, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata }],
    ['Metadata', 'Metadata' as const, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata }],
    ['Object', 'Object' as const, obj],
    ['None', 'None' as const, null],
  ])('puts %s in each row for includeObject', (_, includeObject, expected) => {
    const table = toTable(type('core/configmaps'), [obj], { now: NOW, includeObject });
    expect(table.rows[0].object).toEqual(expected);
  });

  it('fills apiVersion and kind on includeObject=Object when the stored object lacks them', () => {
    const table = toTable(type('apps/deployments'), [{ metadata: meta('d') }], { now: NOW, includeObject: 'Object' });
    expect(table.rows[0].object).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } });
  });

  it.each([
    ['a list page', { resourceVersion: '42', continue: 'tok', remainingItemCount: 3 }, { resourceVersion: '42', continue: 'tok', remainingItemCount: 3 }],
    ['a single object', { resourceVersion: '7' }, { resourceVersion: '7' }],
    ['no list meta', undefined, {}],
    ['empty values', { resourceVersion: '', continue: '' }, {}],
  ])('carries the ListMeta of %s', (_, listMeta, expected) => {
    expect(toTable(type('core/configmaps'), [obj], { now: NOW, listMeta }).metadata).toEqual(expected);
  });

  it('is a meta.k8s.io/v1 Table with one row per object in order', () => {
    const table = toTable(type('core/configmaps'), [obj, { ...obj, metadata: meta('d') }], { now: NOW });
    expect(table).toMatchObject({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
    expect(table.rows.map((r) => r.cells[0])).toEqual(['c', 'd']);
    expect(JSON.parse(JSON.stringify(table))).toEqual(table);
  });

  it('omits column definitions with noHeaders, as watch events after the first do', () => {
    const table = toTable(type('core/configmaps'), [obj], { now: NOW, noHeaders: true });
    expect(table.columnDefinitions).toBeNull();
    expect(table.rows[0].cells).toEqual(['c', 1, '5m']);
  });

  it('returns an empty rows array for an empty list', () => {
    expect(toTable(type('core/pods'), [], { now: NOW }).rows).toEqual([]);
  });
});
