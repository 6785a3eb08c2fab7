// Per-type validation through the real gateway: bad objects get kube-apiserver's 422 Status (exact
// JSON) and are not stored; real manifests applied with kubectl are accepted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, startTestGateway, stopTestGateway, type Running } from './fixtures';

let r: Running;
const NS = 'val';

beforeAll(async () => {
  r = await startTestGateway();
  expect((await http(r, 'POST', '/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
}, 120_000);
afterAll(() => stopTestGateway(r));

const DNS_LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

interface Case {
  name: string;
  path: string;
  body: Record<string, unknown>;
  status: Record<string, unknown>;
}

const cases: Case[] = [
  {
    name: 'a Deployment without selector whose container has no image',
    path: `/apis/apps/v1/namespaces/${NS}/deployments`,
    body: {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' },
      spec: { template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx' }] } } },
    },
    status: {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'Deployment.apps "web" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`, spec.template.spec.containers[0].image: Required value]',
      reason: 'Invalid',
      details: {
        name: 'web', group: 'apps', kind: 'Deployment',
        causes: [
          { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.selector' },
          { reason: 'FieldValueInvalid', message: 'Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`', field: 'spec.template.metadata.labels' },
          { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.template.spec.containers[0].image' },
        ],
      },
      code: 422,
    },
  },
  {
    name: 'a Pod whose requests exceed its limits',
    path: `/api/v1/namespaces/${NS}/pods`,
    body: {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'greedy' },
      spec: { containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '2' }, limits: { cpu: '1' } } }] },
    },
    status: {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'Pod "greedy" is invalid: spec.containers[0].resources.requests: Invalid value: "2": must be less than or equal to cpu limit of 1',
      reason: 'Invalid',
      details: {
        name: 'greedy', kind: 'Pod',
        causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "2": must be less than or equal to cpu limit of 1', field: 'spec.containers[0].resources.requests' }],
      },
      code: 422,
    },
  },
  {
    name: 'a Job whose pods would restart Always',
    path: `/apis/batch/v1/namespaces/${NS}/jobs`,
    body: { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'once' }, spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } } },
    status: {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'Job.batch "once" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"',
      reason: 'Invalid',
      details: {
        name: 'once', group: 'batch', kind: 'Job',
        causes: [{ reason: 'FieldValueRequired', message: 'Required value: valid values: "OnFailure", "Never"', field: 'spec.template.spec.restartPolicy' }],
      },
      code: 422,
    },
  },
  {
    name: 'a Service with two unnamed ports',
    path: `/api/v1/namespaces/${NS}/services`,
    body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc' }, spec: { ports: [{ port: 80 }, { name: 'Admin', port: 8080 }] } },
    status: {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: `Service "svc" is invalid: [spec.ports[0].name: Required value, spec.ports[1].name: Invalid value: "Admin": ${DNS_LABEL}]`,
      reason: 'Invalid',
      details: {
        name: 'svc', kind: 'Service',
        causes: [
          { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.ports[0].name' },
          { reason: 'FieldValueInvalid', message: `Invalid value: "Admin": ${DNS_LABEL}`, field: 'spec.ports[1].name' },
        ],
      },
      code: 422,
    },
  },
  {
    name: 'a TLS Secret without its key',
    path: `/api/v1/namespaces/${NS}/secrets`,
    body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'tls' }, type: 'kubernetes.io/tls', data: { 'tls.crt': btoa('CERT') } },
    status: {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'Secret "tls" is invalid: data[tls.key]: Required value',
      reason: 'Invalid',
      details: { name: 'tls', kind: 'Secret', causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'data[tls.key]' }] },
      code: 422,
    },
  },
  {
    name: 'a Role rule without verbs that names non-resource URLs',
    path: `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/roles`,
    body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'r' }, rules: [{ nonResourceURLs: ['/healthz'] }] },
    status: {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'Role.rbac.authorization.k8s.io "r" is invalid: [rules[0].verbs: Required value: verbs must contain at least one value, rules[0].nonResourceURLs: Invalid value: []string{"/healthz"}: namespaced rules cannot apply to non-resource URLs]',
      reason: 'Invalid',
      details: {
        name: 'r', group: 'rbac.authorization.k8s.io', kind: 'Role',
        causes: [
          { reason: 'FieldValueRequired', message: 'Required value: verbs must contain at least one value', field: 'rules[0].verbs' },
          { reason: 'FieldValueInvalid', message: 'Invalid value: []string{"/healthz"}: namespaced rules cannot apply to non-resource URLs', field: 'rules[0].nonResourceURLs' },
        ],
      },
      code: 422,
    },
  },
];

describe('invalid objects', () => {
  it("a body whose fields have the wrong JSON types is refused by decoding first (400), as kube's decoder does", async () => {
    const res = await http(r, 'POST', `/api/v1/namespaces/${NS}/pods`,
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'typo', labels: { n: 1 } }, spec: { containers: 'nginx' } });
    expect(res.json).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
      message: 'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string',
      reason: 'BadRequest', code: 400,
    });
    expect((await http(r, 'GET', `/api/v1/namespaces/${NS}/pods/typo`)).status).toBe(404);
  });

  it.each(cases)('$name → 422 Invalid, nothing stored', async (c) => {
    const before = await http(r, 'GET', c.path);
    const res = await http(r, 'POST', c.path, c.body);
    expect(res.status).toBe(422);
    expect(res.json).toEqual(c.status);
    const name = (c.body.metadata as { name: string }).name;
    expect((await http(r, 'GET', `${c.path}/${name}`)).status).toBe(404);
    const after = await http(r, 'GET', c.path);
    expect(after.json.items).toEqual(before.json.items);
    expect(after.json.metadata.resourceVersion).toBe(before.json.metadata.resourceVersion);
  });

  it('an update that changes a RoleBinding roleRef is refused and changes nothing', async () => {
    const path = `/apis/rbac.authorization.k8s.io/v1/namespaces/${NS}/rolebindings`;
    const created = await http(r, 'POST', path, {
      metadata: { name: 'b' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'User', name: 'dave' }],
    });
    expect(created.status).toBe(201);
    const res = await http(r, 'PUT', `${path}/b`, { ...created.json, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' } });
    expect(res.status).toBe(422);
    expect(res.json.message).toBe('RoleBinding.rbac.authorization.k8s.io "b" is invalid: roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"edit"}: cannot change roleRef');
    expect(res.json.details.causes).toEqual([{
      reason: 'FieldValueInvalid', field: 'roleRef',
      message: 'Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"ClusterRole", Name:"edit"}: cannot change roleRef',
    }]);
    expect((await http(r, 'GET', `${path}/b`)).json).toEqual(created.json);
  });
});

const MANIFESTS = `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
  namespace: ${NS}
spec:
  replicas: 2
  selector:
    matchLabels: { app: shop }
  strategy:
    type: RollingUpdate
    rollingUpdate: { maxSurge: 1, maxUnavailable: 0 }
  template:
    metadata:
      labels: { app: shop }
    spec:
      initContainers:
      - name: wait-db
        image: busybox:1.36
        command: [sh, -c, "until nslookup db; do sleep 2; done"]
      containers:
      - name: web
        image: nginx:1.27
        ports:
        - { name: http, containerPort: 80 }
        env:
        - { name: MODE, value: prod }
        - name: NODE
          valueFrom: { fieldRef: { fieldPath: spec.nodeName } }
        resources:
          requests: { cpu: 100m, memory: 64Mi }
          limits: { cpu: "1", memory: 256Mi }
        readinessProbe:
          httpGet: { path: /, port: http }
        livenessProbe:
          tcpSocket: { port: 80 }
          periodSeconds: 20
        volumeMounts:
        - { name: cache, mountPath: /var/cache/nginx }
      - name: exporter
        image: nginx/nginx-prometheus-exporter:1.1
        args: ["--nginx.scrape-uri=http://localhost/stub_status"]
        ports:
        - { name: metrics, containerPort: 9113 }
      volumes:
      - name: cache
        emptyDir: {}
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  namespace: ${NS}
spec:
  serviceName: db
  replicas: 1
  selector:
    matchLabels: { app: db }
  template:
    metadata:
      labels: { app: db }
    spec:
      containers:
      - name: postgres
        image: postgres:16
        ports:
        - { containerPort: 5432, name: pg }
        volumeMounts:
        - { name: data, mountPath: /var/lib/postgresql/data }
  volumeClaimTemplates:
  - metadata: { name: data }
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests: { storage: 1Gi }
---
apiVersion: batch/v1
kind: Job
metadata:
  name: migrate
  namespace: ${NS}
spec:
  backoffLimit: 2
  template:
    spec:
      restartPolicy: OnFailure
      containers:
      - name: migrate
        image: busybox:1.36
        command: [echo, done]
---
apiVersion: v1
kind: Service
metadata:
  name: db
  namespace: ${NS}
spec:
  clusterIP: None
  selector: { app: db }
  ports:
  - { port: 5432, targetPort: pg }
---
apiVersion: v1
kind: Secret
metadata:
  name: registry
  namespace: ${NS}
type: kubernetes.io/dockerconfigjson
stringData:
  .dockerconfigjson: '{"auths":{"registry.example.com":{"auth":"dTpw"}}}'
`;

describe('valid manifests', () => {
  it('kubectl apply accepts a multi-container Deployment, a StatefulSet, a Job, a headless Service and a Secret', async () => {
    const res = await kubectl(r, ['apply', '-f', '-'], MANIFESTS);
    expect(res.stderr).toBe('');
    expect(res.stdout.trim().split('\n')).toEqual([
      'deployment.apps/shop created', 'statefulset.apps/db created', 'job.batch/migrate created', 'service/db created', 'secret/registry created',
    ]);
    const again = await kubectl(r, ['apply', '-f', '-'], MANIFESTS);
    expect(again.stderr).toBe('');
    // kubectl says "configured" whenever its three-way patch is not empty, as against kube: a StatefulSet's
    // volumeClaimTemplates (a list without merge key, defaulted by the server) and a Secret's stringData (never
    // stored) always differ from the manifest. The others are unchanged.
    expect(again.stdout).toContain('deployment.apps/shop unchanged');
    expect(again.stdout).toContain('job.batch/migrate unchanged');
    expect(again.stdout).toContain('service/db unchanged');
  });

  it('kubectl shows the 422 of an invalid manifest as it would for kube-apiserver', async () => {
    const res = await kubectl(r, ['create', '-f', '-'], JSON.stringify({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'broken', namespace: NS },
      spec: { selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x' } }, spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } },
    }));
    expect(res.code).not.toBe(0);
    expect(res.stderr.trim()).toBe('The Deployment "broken" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"');
    expect((await http(r, 'GET', `/apis/apps/v1/namespaces/${NS}/deployments/broken`)).status).toBe(404);
  });
});
