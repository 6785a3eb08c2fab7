// Test fixtures: valid objects as real manifests write them (kubectl create / the Kubernetes docs),
// each of which kube-apiserver accepts. Functions, so each test can mutate its own copy.
export const deployment = () => ({
  apiVersion: 'apps/v1', kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop', labels: { app: 'web' } },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: 'web' } },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: '25%' } },
    template: {
      metadata: { labels: { app: 'web', tier: 'frontend' }, annotations: { 'prometheus.io/scrape': 'true' } },
      spec: {
        initContainers: [{ name: 'migrate', image: 'busybox:1.36', command: ['sh', '-c', 'echo migrate'] }],
        containers: [
          {
            name: 'nginx', image: 'nginx:1.27',
            ports: [{ name: 'http', containerPort: 80, protocol: 'TCP' }, { name: 'metrics', containerPort: 9113 }],
            env: [
              { name: 'MODE', value: 'production' },
              { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
              { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
            ],
            envFrom: [{ configMapRef: { name: 'web-config' } }],
            resources: { requests: { cpu: '250m', memory: '64Mi' }, limits: { cpu: '1', memory: '128Mi' } },
            livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, initialDelaySeconds: 5, periodSeconds: 10 },
            readinessProbe: { tcpSocket: { port: 80 } },
            startupProbe: { exec: { command: ['cat', '/tmp/ready'] }, failureThreshold: 30 },
            lifecycle: { preStop: { exec: { command: ['nginx', '-s', 'quit'] } } },
            volumeMounts: [{ name: 'config', mountPath: '/etc/nginx/conf.d' }, { name: 'cache', mountPath: '/var/cache/nginx' }],
          },
          { name: 'sidecar', image: 'busybox', args: ['sleep', 'infinity'], volumeMounts: [{ name: 'cache', mountPath: '/cache', readOnly: true }] },
        ],
        volumes: [
          { name: 'config', configMap: { name: 'web-config' } },
          { name: 'cache', emptyDir: { sizeLimit: '500Mi' } },
        ],
        tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        serviceAccountName: 'web',
      },
    },
  },
});

export const pod = () => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' },
  spec: { containers: [{ name: 'app', image: 'nginx' }] },
});

export const statefulSet = () => ({
  apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db', namespace: 'shop' },
  spec: {
    serviceName: 'db', replicas: 3,
    selector: { matchLabels: { app: 'db' } },
    template: {
      metadata: { labels: { app: 'db' } },
      spec: {
        terminationGracePeriodSeconds: 10,
        containers: [{ name: 'postgres', image: 'postgres:16', ports: [{ containerPort: 5432, name: 'pg' }], volumeMounts: [{ name: 'data', mountPath: '/var/lib/postgresql/data' }] }],
      },
    },
    volumeClaimTemplates: [{
      metadata: { name: 'data' },
      spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'standard', resources: { requests: { storage: '1Gi' } } },
    }],
  },
});

export const daemonSet = () => ({
  apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'agent', namespace: 'kube-system' },
  spec: {
    selector: { matchLabels: { name: 'agent' } },
    template: {
      metadata: { labels: { name: 'agent' } },
      spec: {
        tolerations: [{ key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' }],
        containers: [{ name: 'agent', image: 'fluentd:v1', resources: { limits: { memory: '200Mi' }, requests: { cpu: '100m', memory: '200Mi' } }, volumeMounts: [{ name: 'varlog', mountPath: '/var/log' }] }],
        volumes: [{ name: 'varlog', hostPath: { path: '/var/log' } }],
      },
    },
  },
});

export const replicaSet = () => ({
  apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'fe', namespace: 'default' },
  spec: {
    replicas: 2, selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['frontend'] }] },
    template: { metadata: { labels: { tier: 'frontend' } }, spec: { containers: [{ name: 'php', image: 'gcr.io/google_samples/gb-frontend:v3' }] } },
  },
});

export const job = () => ({
  apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'pi', namespace: 'default' },
  spec: {
    backoffLimit: 4, completions: 3, parallelism: 2,
    template: { spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl:5.34.0', command: ['perl', '-Mbignum=bpi', '-wle', 'print bpi(2000)'] }] } },
  },
});

export const service = () => ({
  apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'shop' },
  spec: {
    selector: { app: 'web' },
    ports: [{ name: 'http', port: 80, targetPort: 'http' }, { name: 'https', port: 443, targetPort: 8443, protocol: 'TCP' }],
  },
});

export const secret = () => ({
  apiVersion: 'v1', kind: 'Secret', metadata: { name: 'tls', namespace: 'default' }, type: 'kubernetes.io/tls',
  data: { 'tls.crt': btoa('CERT'), 'tls.key': btoa('KEY') }, stringData: { extra: 'x' },
});

export const configMap = () => ({
  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'game', namespace: 'default' },
  data: { 'game.properties': 'lives=3', player_initial_lives: '3' }, binaryData: { icon: btoa('\x00\x01') },
});

export const roleBinding = () => ({
  apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'read-pods', namespace: 'default' },
  subjects: [{ kind: 'User', name: 'jane', apiGroup: 'rbac.authorization.k8s.io' }, { kind: 'ServiceAccount', name: 'ci', namespace: 'build' }],
  roleRef: { kind: 'ClusterRole', name: 'view', apiGroup: 'rbac.authorization.k8s.io' },
});

export const clusterRole = () => ({
  apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'monitoring' },
  rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }, { nonResourceURLs: ['/metrics'], verbs: ['get'] }],
  aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate-to-monitoring': 'true' } }] },
});

export const endpoints = () => ({
  apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web', namespace: 'default' },
  subsets: [{ addresses: [{ ip: '10.244.0.5', nodeName: 'node-1', targetRef: { kind: 'Pod', name: 'web-1' } }], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }],
});

export const endpointSlice = () => ({
  apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'web-x1', namespace: 'default' },
  addressType: 'IPv4', endpoints: [{ addresses: ['10.244.0.5'], conditions: { ready: true }, hostname: 'web-1' }],
  ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
});

export const event = () => ({
  apiVersion: 'v1', kind: 'Event', metadata: { name: 'web.17', namespace: 'default' },
  involvedObject: { kind: 'Pod', name: 'web-1', namespace: 'default' }, reason: 'Pulled', message: 'pulled', count: 1, type: 'Normal',
});

export const node = () => ({
  apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' },
  spec: { podCIDR: '10.244.0.0/24', podCIDRs: ['10.244.0.0/24'], taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] },
});

export const lease = () => ({
  apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'node-1', namespace: 'kube-node-lease' },
  spec: { holderIdentity: 'node-1', leaseDurationSeconds: 40, leaseTransitions: 0 },
});
