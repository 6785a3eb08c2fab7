// Test fixtures: real-world objects as kubectl sends them (valid, already canonical), shared by the
// walker's unit tests and the benchmark script.

export function deployment(containers = 1): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web', namespace: 'shop', labels: { app: 'web', tier: 'frontend' },
      annotations: { 'deployment.kubernetes.io/revision': '3', 'kubectl.kubernetes.io/last-applied-configuration': '{"apiVersion":"apps/v1"}' },
    },
    spec: {
      replicas: 3,
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['frontend'] }] },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
      template: {
        metadata: { labels: { app: 'web', tier: 'frontend' }, annotations: { 'prometheus.io/scrape': 'true' } },
        spec: {
          serviceAccountName: 'web',
          terminationGracePeriodSeconds: 30,
          dnsPolicy: 'ClusterFirst',
          restartPolicy: 'Always',
          securityContext: { runAsNonRoot: true, runAsUser: 1000, fsGroup: 2000, seccompProfile: { type: 'RuntimeDefault' } },
          affinity: {
            podAntiAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [{
                weight: 100,
                podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'web' } } },
              }],
            },
          },
          tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule', tolerationSeconds: 300 }],
          initContainers: [{ name: 'migrate', image: 'registry.example.com/web:1.2.3', command: ['/bin/migrate'], args: ['--wait'] }],
          containers: Array.from({ length: containers }, (_, i) => container(i)),
          volumes: [
            { name: 'config', configMap: { name: 'web-config', defaultMode: 420, items: [{ key: 'app.yaml', path: 'app.yaml' }] } },
            { name: 'cache', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } },
            { name: 'secret', secret: { secretName: 'web-tls', optional: false } },
          ],
        },
      },
    },
  };
}

function container(i: number): Record<string, unknown> {
  return {
    name: `web-${i}`,
    image: 'registry.example.com/web:1.2.3',
    imagePullPolicy: 'IfNotPresent',
    ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }, { name: 'metrics', containerPort: 9090 }],
    env: [
      { name: 'LOG_LEVEL', value: 'info' },
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name', apiVersion: 'v1' } } },
      { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
      { name: 'MEM_LIMIT', valueFrom: { resourceFieldRef: { resource: 'limits.memory', divisor: '1Mi' } } },
    ],
    envFrom: [{ configMapRef: { name: 'web-env' } }],
    resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '1', memory: '512Mi', 'ephemeral-storage': '1Gi' } },
    livenessProbe: { httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' }, initialDelaySeconds: 10, periodSeconds: 10, failureThreshold: 3 },
    readinessProbe: { tcpSocket: { port: 8080 }, timeoutSeconds: 1 },
    lifecycle: { preStop: { exec: { command: ['sh', '-c', 'sleep 5'] } } },
    volumeMounts: [{ name: 'config', mountPath: '/etc/web', readOnly: true }, { name: 'cache', mountPath: '/cache' }],
    securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } },
  };
}

export function statefulSet(): Record<string, unknown> {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'db', namespace: 'shop' },
    spec: {
      serviceName: 'db',
      replicas: 3,
      podManagementPolicy: 'Parallel',
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0, maxUnavailable: '50%' } },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Delete' },
      selector: { matchLabels: { app: 'db' } },
      template: {
        metadata: { labels: { app: 'db' } },
        spec: {
          containers: [{
            name: 'postgres', image: 'postgres:16', ports: [{ containerPort: 5432, name: 'pg' }],
            resources: { requests: { cpu: '500m', memory: '1Gi' } },
            volumeMounts: [{ name: 'data', mountPath: '/var/lib/postgresql/data' }],
          }],
        },
      },
      volumeClaimTemplates: [{
        metadata: { name: 'data' },
        spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'fast', resources: { requests: { storage: '10Gi' } } },
      }],
    },
  };
}

export function job(): Record<string, unknown> {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'report', namespace: 'shop', labels: { team: 'data' } },
    spec: {
      parallelism: 2, completions: 4, backoffLimit: 6, activeDeadlineSeconds: 3600, ttlSecondsAfterFinished: 100,
      completionMode: 'Indexed', suspend: false,
      podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { containerName: 'report', operator: 'In', values: [42] } }] },
      template: {
        spec: {
          restartPolicy: 'Never',
          containers: [{ name: 'report', image: 'busybox:1.36', command: ['sh', '-c', 'echo done'], resources: { limits: { cpu: '250m', memory: '64Mi' } } }],
        },
      },
    },
  };
}

export function pod(): Record<string, unknown> {
  const d = deployment(1) as { spec: { template: { spec: Record<string, unknown> } } };
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-1', namespace: 'shop', labels: { app: 'web' } }, spec: d.spec.template.spec };
}
