// Load generator: the objects written: a ~1 KiB Pod (writes, lists) and a ConfigMap whose name carries
// the event's index (fan-out, resume). etcd and the bare broadcast carry the same bytes.

const PAD = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A Pod of ~1 KiB as JSON (the request body; the stored object gains uid, timestamps and status). */
export function podJson(namespace: string, name: string): string {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      labels: { app: 'bench', tier: 'backend', 'pod-template-hash': '7d4b9c8f6d' },
      annotations: { 'bench.edgeplane.dev/padding': PAD.repeat(9) },
    },
    spec: {
      containers: [{
        name: 'app',
        image: 'registry.example.com/bench/app:1.2.3',
        args: ['--listen=:8080', '--log-level=info'],
        ports: [{ containerPort: 8080, protocol: 'TCP' }],
        env: [{ name: 'MODE', value: 'bench' }, { name: 'REGION', value: 'local' }],
        resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
      }],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
      dnsPolicy: 'ClusterFirst',
      serviceAccountName: 'default',
    },
  };
  return JSON.stringify(pod);
}

/** The fan-out event: a ConfigMap named e-<index> with a 512-byte payload (~0.7 KiB on the wire). */
export function eventJson(namespace: string, index: number): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `e-${index}`, namespace }, data: { payload: 'x'.repeat(512) } });
}
