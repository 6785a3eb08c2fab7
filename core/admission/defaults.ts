// Canonical layer admission: the defaults kube-apiserver fills in on create and update (pkg/apis/*/v1
// defaults.go), for the fields kubectl and controllers read back: service type and ports, workload
// replicas and strategy, pod spec policies. Data per kind; functions only where a default is computed.

import type { KubeObject } from '../object-meta';

type Obj = Record<string, any>;

function fill(target: Obj, defaults: Obj): void {
  for (const [k, v] of Object.entries(defaults)) {
    if (target[k] === undefined) target[k] = structuredClone(v);
  }
}

function podSpec(spec: Obj | undefined): void {
  if (!spec) return;
  fill(spec, {
    restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', schedulerName: 'default-scheduler',
    terminationGracePeriodSeconds: 30, securityContext: {}, enableServiceLinks: true,
  });
  for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])] as Obj[]) {
    const image = String(c.image ?? '');
    const tag = image.includes('@') ? 'digest' : image.split('/').at(-1)!.split(':')[1];
    fill(c, {
      imagePullPolicy: !tag || tag === 'latest' ? 'Always' : 'IfNotPresent',
      terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', resources: {},
    });
    for (const p of (c.ports ?? []) as Obj[]) fill(p, { protocol: 'TCP' });
  }
}

function workload(obj: Obj, extra: Obj = {}): void {
  obj.spec ??= {};
  fill(obj.spec, { replicas: 1, revisionHistoryLimit: 10, ...extra });
  podSpec(obj.spec.template?.spec);
}

const BY_KIND: Record<string, (obj: Obj) => void> = {
  Pod: (obj) => podSpec(obj.spec),
  Service: (obj) => {
    obj.spec ??= {};
    fill(obj.spec, { type: 'ClusterIP', sessionAffinity: 'None', internalTrafficPolicy: 'Cluster' });
    for (const p of (obj.spec.ports ?? []) as Obj[]) fill(p, { protocol: 'TCP', targetPort: p.port });
  },
  Deployment: (obj) => {
    workload(obj, { strategy: {}, progressDeadlineSeconds: 600 });
    // SetDefaults_Deployment: `strategy: {}` (what kubectl create deployment sends) is filled field by field.
    const strategy = obj.spec.strategy as Obj;
    fill(strategy, { type: 'RollingUpdate' });
    if (strategy.type === 'RollingUpdate') {
      strategy.rollingUpdate ??= {};
      fill(strategy.rollingUpdate, { maxUnavailable: '25%', maxSurge: '25%' });
    }
  },
  ReplicaSet: (obj) => workload(obj),
  StatefulSet: (obj) => workload(obj, {
    podManagementPolicy: 'OrderedReady', updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
  }),
  DaemonSet: (obj) => {
    obj.spec ??= {};
    fill(obj.spec, { revisionHistoryLimit: 10, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } } });
    podSpec(obj.spec.template?.spec);
  },
  Job: (obj) => {
    obj.spec ??= {};
    fill(obj.spec, { parallelism: 1, completions: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false });
    podSpec(obj.spec.template?.spec);
  },
  Namespace: (obj) => {
    obj.spec ??= {};
    fill(obj.spec, { finalizers: ['kubernetes'] });
  },
};

export function applyDefaults(obj: KubeObject): void {
  BY_KIND[obj.kind ?? '']?.(obj);
}
