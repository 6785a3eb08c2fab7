// kube 1.32's whole API through /usr/bin/kubectl: `kubectl api-resources` lists what kube 1.32 lists
// (test/data/kube-1.32-discovery.json, derived from the vendored OpenAPI document); every newly served type is
// stored, listed as a Table, watched and server-side applied; the apiserver's own objects exist; pods/log, exec,
// attach, port-forward and ephemeral containers answer as kube's do; `apply --prune` needs no allowlist; the review
// types answer from the real authenticator and authorizer; compact JSON ends with a newline.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KUBE_DISCOVERY_FILE, type KubeDiscovery } from '../../scripts/kube-discovery';
import { http, kubectl, startTestGateway, stopTestGateway, waitFor, type Running } from './fixtures';

const kube = JSON.parse(readFileSync(KUBE_DISCOVERY_FILE, 'utf8')) as KubeDiscovery;

/** `kubectl api-resources -o wide` as rows, cut at the header's column starts (empty cells stay empty). */
function parseTable(out: string): Record<string, string>[] {
  const [header, ...lines] = out.split('\n').filter((l) => l.trim() !== '');
  const names = header!.split(/\s+/).filter(Boolean);
  const starts = names.map((n) => header!.indexOf(n));
  return lines.map((l) => Object.fromEntries(names.map((n, i) => [n, l.slice(starts[i], starts[i + 1]).trim()])));
}

/** The rows kube 1.32 would show: the preferred version of every group, in kubectl's columns. */
function kubeRows(): string[] {
  const rows: string[] = [];
  for (const g of [kube.core, ...kube.groups]) {
    const group = g.metadata.name ?? '';
    const v = g.versions[0]!;
    for (const r of v.resources) {
      rows.push([r.resource, (r.shortNames ?? []).join(','), group ? `${group}/${v.version}` : v.version, String(r.scope === 'Namespaced'),
        r.responseKind.kind, [...r.verbs].sort().join(','), (r.categories ?? []).join(',')].join(' | '));
    }
  }
  // metrics-server's two resources, served built in (a cluster with metrics-server lists them too).
  rows.push('nodes |  | metrics.k8s.io/v1beta1 | false | NodeMetrics | get,list | ', 'pods |  | metrics.k8s.io/v1beta1 | true | PodMetrics | get,list | ');
  return rows.sort();
}

const MANIFESTS = (csr: string) => `
apiVersion: v1
kind: PodTemplate
metadata: {name: tpl, namespace: team}
template:
  metadata: {labels: {app: t}}
  spec: {containers: [{name: c, image: busybox}]}
---
apiVersion: v1
kind: LimitRange
metadata: {name: limits, namespace: team}
spec: {limits: [{type: Container, max: {cpu: "2"}, defaultRequest: {cpu: 100m}}]}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: team}
spec: {accessModes: [ReadWriteOnce], storageClassName: standard, resources: {requests: {storage: 1Gi}}}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv1}
spec: {capacity: {storage: 1Gi}, accessModes: [ReadWriteOnce], hostPath: {path: /data/pv1}}
---
apiVersion: v1
kind: ResourceQuota
metadata: {name: quota, namespace: team}
spec: {hard: {pods: "10"}}
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1alpha1.example.com}
spec: {group: example.com, version: v1alpha1, groupPriorityMinimum: 1000, versionPriority: 15, service: {name: api, namespace: team}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: hpa, namespace: team}
spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}, maxReplicas: 5}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: cj, namespace: team}
spec:
  schedule: "*/5 * * * *"
  jobTemplate: {spec: {template: {spec: {restartPolicy: OnFailure, containers: [{name: c, image: busybox}]}}}}
---
apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata: {name: alice}
spec: {request: ${csr}, signerName: kubernetes.io/kube-apiserver-client, usages: [client auth]}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny, namespace: team}
spec: {podSelector: {}, policyTypes: [Ingress]}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: ing, namespace: team}
spec:
  rules:
  - host: a.example.com
    http: {paths: [{path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}]}
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: nginx}
spec: {controller: k8s.io/ingress-nginx}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: pdb, namespace: team}
spec: {minAvailable: 1, selector: {matchLabels: {app: web}}}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: example.com/fast
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata: {name: va1}
spec: {attacher: example.com/csi, nodeName: node-1, source: {persistentVolumeName: pv1}}
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: example.csi.k8s.io}
spec: {attachRequired: false}
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: node-1}
spec: {drivers: [{name: example.csi.k8s.io, nodeID: node-1}]}
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: cap1, namespace: team}
storageClassName: fast
capacity: 10Gi
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: mwc}
webhooks:
- name: m.example.com
  clientConfig: {url: "https://webhook.example.com/mutate"}
  sideEffects: None
  admissionReviewVersions: [v1]
  rules: [{operations: [CREATE], apiGroups: ["example.com"], apiVersions: ["*"], resources: ["widgets"]}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: vwc}
webhooks:
- name: v.example.com
  clientConfig: {url: "https://webhook.example.com/validate"}
  sideEffects: None
  admissionReviewVersions: [v1]
  rules: [{operations: [CREATE], apiGroups: ["example.com"], apiVersions: ["*"], resources: ["widgets"]}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: vap}
spec:
  matchConstraints: {resourceRules: [{apiGroups: ["example.com"], apiVersions: ["*"], operations: [CREATE], resources: ["widgets"]}]}
  validations: [{expression: "true"}]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: vapb}
spec: {policyName: vap, validationActions: [Warn]}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: gvisor}
handler: runsc
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: plc}
spec: {type: Limited, limited: {nominalConcurrencyShares: 10, limitResponse: {type: Reject}}}
---
apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: fs}
spec:
  priorityLevelConfiguration: {name: plc}
  matchingPrecedence: 1000
  rules: [{subjects: [{kind: Group, group: {name: "system:authenticated"}}], resourceRules: [{verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"]}]}]
`;

// Each manifest's collection path and one field kube's defaulting fills in (path, value).
const TYPES: [string, string, string, unknown][] = [
  ['podtemplates', '/api/v1/namespaces/team/podtemplates/tpl', 'template.spec.restartPolicy', 'Always'],
  ['limitranges', '/api/v1/namespaces/team/limitranges/limits', 'spec.limits.0.default.cpu', '2'],
  ['persistentvolumeclaims', '/api/v1/namespaces/team/persistentvolumeclaims/data', 'spec.volumeMode', 'Filesystem'],
  ['persistentvolumes', '/api/v1/persistentvolumes/pv1', 'spec.persistentVolumeReclaimPolicy', 'Retain'],
  ['resourcequotas', '/api/v1/namespaces/team/resourcequotas/quota', 'spec.hard.pods', '10'],
  ['apiservices.apiregistration.k8s.io', '/apis/apiregistration.k8s.io/v1/apiservices/v1alpha1.example.com', 'spec.service.port', 443],
  ['horizontalpodautoscalers.autoscaling', '/apis/autoscaling/v2/namespaces/team/horizontalpodautoscalers/hpa', 'spec.minReplicas', 1],
  ['cronjobs.batch', '/apis/batch/v1/namespaces/team/cronjobs/cj', 'spec.concurrencyPolicy', 'Allow'],
  ['certificatesigningrequests.certificates.k8s.io', '/apis/certificates.k8s.io/v1/certificatesigningrequests/alice', 'spec.usages.0', 'client auth'],
  ['networkpolicies.networking.k8s.io', '/apis/networking.k8s.io/v1/namespaces/team/networkpolicies/deny', 'spec.policyTypes.0', 'Ingress'],
  ['ingresses.networking.k8s.io', '/apis/networking.k8s.io/v1/namespaces/team/ingresses/ing', 'spec.rules.0.http.paths.0.pathType', 'Prefix'],
  ['ingressclasses.networking.k8s.io', '/apis/networking.k8s.io/v1/ingressclasses/nginx', 'spec.controller', 'k8s.io/ingress-nginx'],
  ['poddisruptionbudgets.policy', '/apis/policy/v1/namespaces/team/poddisruptionbudgets/pdb', 'spec.minAvailable', 1],
  ['storageclasses.storage.k8s.io', '/apis/storage.k8s.io/v1/storageclasses/fast', 'volumeBindingMode', 'Immediate'],
  ['volumeattachments.storage.k8s.io', '/apis/storage.k8s.io/v1/volumeattachments/va1', 'spec.nodeName', 'node-1'],
  ['csidrivers.storage.k8s.io', '/apis/storage.k8s.io/v1/csidrivers/example.csi.k8s.io', 'spec.volumeLifecycleModes.0', 'Persistent'],
  ['csinodes.storage.k8s.io', '/apis/storage.k8s.io/v1/csinodes/node-1', 'spec.drivers.0.nodeID', 'node-1'],
  ['csistoragecapacities.storage.k8s.io', '/apis/storage.k8s.io/v1/namespaces/team/csistoragecapacities/cap1', 'capacity', '10Gi'],
  ['mutatingwebhookconfigurations.admissionregistration.k8s.io', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/mwc', 'webhooks.0.reinvocationPolicy', 'Never'],
  ['validatingwebhookconfigurations.admissionregistration.k8s.io', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/vwc', 'webhooks.0.failurePolicy', 'Fail'],
  ['validatingadmissionpolicies.admissionregistration.k8s.io', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies/vap', 'spec.failurePolicy', 'Fail'],
  ['validatingadmissionpolicybindings.admissionregistration.k8s.io', '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings/vapb', 'spec.policyName', 'vap'],
  ['priorityclasses.scheduling.k8s.io', '/apis/scheduling.k8s.io/v1/priorityclasses/high', 'preemptionPolicy', 'PreemptLowerPriority'],
  ['runtimeclasses.node.k8s.io', '/apis/node.k8s.io/v1/runtimeclasses/gvisor', 'handler', 'runsc'],
  ['prioritylevelconfigurations.flowcontrol.apiserver.k8s.io', '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations/plc', 'spec.limited.lendablePercent', 0],
  ['flowschemas.flowcontrol.apiserver.k8s.io', '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/fs', 'spec.matchingPrecedence', 1000],
];

const at = (obj: unknown, path: string): unknown => path.split('.').reduce<any>((o, k) => (o == null ? undefined : o[k]), obj);

describe('the whole kube 1.32 API through kubectl', () => {
  let r: Running;
  let csr = '';
  let tmp = '';

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'whole-api-'));
    execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', join(tmp, 'k.pem'),
      '-subj', '/CN=alice/O=dev', '-out', join(tmp, 'csr.pem')], { stdio: 'ignore' });
    csr = readFileSync(join(tmp, 'csr.pem')).toString('base64');
    r = await startTestGateway({ vars: { CONTROLLERS: 'on', SIMULATED_NODES: '1' } });
    expect((await kubectl(r, ['create', 'namespace', 'team'])).code).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await stopTestGateway(r);
    rmSync(tmp, { recursive: true, force: true });
  });

  it('`kubectl api-resources -o wide` lists what kube 1.32 lists: names, short names, versions, scopes, kinds, verbs, categories', async () => {
    const out = await kubectl(r, ['api-resources', '-o', 'wide']);
    expect(out.code, out.stderr).toBe(0);
    const rows = parseTable(out.stdout).map((x) => [x.NAME, x.SHORTNAMES, x.APIVERSION, x.NAMESPACED, x.KIND,
      x.VERBS!.split(',').filter(Boolean).sort().join(','), x.CATEGORIES].join(' | ')).sort();
    expect(rows).toEqual(kubeRows());
    expect(rows).toHaveLength(60);
  });

  it('every newly served type: created by apply, defaulted, shown as a Table, watched and server-side applied', async () => {
    // A watch per type from the empty collection's resourceVersion sees the ADDED event.
    const watches = await Promise.all(TYPES.map(async ([, path]) => {
      const collection = path.slice(0, path.lastIndexOf('/'));
      const list = await http(r, 'GET', collection);
      expect(list.status, `${collection}: ${list.text}`).toBe(200);
      return { collection, rv: list.json.metadata.resourceVersion as string };
    }));
    const applied = await kubectl(r, ['apply', '-f', '-'], MANIFESTS(csr));
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout.trim().split('\n')).toHaveLength(TYPES.length);
    for (const [, path, field, value] of TYPES) {
      const got = await http(r, 'GET', path);
      expect(got.status, `${path}: ${got.text}`).toBe(200);
      expect(at(got.json, field), `${path} ${field}`).toEqual(value);
    }
    // One `kubectl get` of every type: each printed from the server's Table, as `<resource>/<name>`.
    const table = await kubectl(r, ['get', TYPES.map(([resource]) => resource).join(','), '-A']);
    expect(table.code, table.stderr).toBe(0);
    const printed = new Set(table.stdout.split('\n').flatMap((l) => l.split(/\s+/)).filter((w) => w.includes('/')).map((w) => w.slice(w.lastIndexOf('/') + 1)));
    for (const [resource, path] of TYPES) expect(printed.has(path.slice(path.lastIndexOf('/') + 1)), resource).toBe(true);
    await Promise.all(watches.map(async ({ collection, rv }, i) => {
      const w = await http(r, 'GET', `${collection}?watch=true&resourceVersion=${rv}&timeoutSeconds=1`);
      const events = w.text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
      const name = TYPES[i]![1].slice(TYPES[i]![1].lastIndexOf('/') + 1);
      expect(events.map((e) => `${e.type} ${e.object.metadata.name}`), collection).toContain(`ADDED ${name}`);
    }));
    // Server-side apply: new objects of each type (names suffixed), applied twice, owned by kubectl's manager.
    const renamed = MANIFESTS(csr).replace(/name: (tpl|limits|data|pv1|quota|hpa|cj|alice|deny|ing|nginx|pdb|fast|va1|cap1|mwc|vwc|vap|vapb|high|gvisor|plc|fs)([,}])/g, 'name: $1-ssa$2')
      .replace('name: v1alpha1.example.com', 'name: v1alpha2.example.com').replace('version: v1alpha1', 'version: v1alpha2')
      .replace('name: example.csi.k8s.io}', 'name: other.csi.k8s.io}').replace('name: node-1}\nspec: {drivers', 'name: node-2}\nspec: {drivers')
      .replace('policyName: vap,', 'policyName: vap-ssa,');
    for (let round = 0; round < 2; round++) {
      const ssa = await kubectl(r, ['apply', '--server-side', '-f', '-'], renamed);
      expect(ssa.code, ssa.stderr).toBe(0);
      expect(ssa.stdout.trim().split('\n').filter((l) => l.endsWith('serverside-applied'))).toHaveLength(TYPES.length);
    }
    const pc = await http(r, 'GET', '/apis/scheduling.k8s.io/v1/priorityclasses/high-ssa');
    expect(pc.json.metadata.managedFields.map((m: { manager: string; operation: string }) => `${m.manager}/${m.operation}`)).toEqual(['kubectl/Apply']);
  }, 180_000);

  it('the bootstrap ClusterRoles grant the new types as kube\'s do (view reads, edit writes, neither reaches cluster types)', async () => {
    expect((await kubectl(r, ['create', 'rolebinding', 'viewer', '--clusterrole=view', '--user=vera', '-n', 'team'])).code).toBe(0);
    expect((await kubectl(r, ['create', 'rolebinding', 'editor', '--clusterrole=edit', '--user=ed', '-n', 'team'])).code).toBe(0);
    const can = async (user: string, verb: string, resource: string) => (await kubectl(r, ['auth', 'can-i', verb, resource, '-n', 'team', `--as=${user}`])).stdout.trim();
    for (const resource of ['cronjobs.batch', 'horizontalpodautoscalers.autoscaling', 'poddisruptionbudgets.policy', 'ingresses.networking.k8s.io',
      'networkpolicies.networking.k8s.io', 'persistentvolumeclaims', 'limitranges', 'resourcequotas']) {
      expect(await can('vera', 'list', resource), resource).toBe('yes');
    }
    for (const resource of ['cronjobs.batch', 'horizontalpodautoscalers.autoscaling', 'poddisruptionbudgets.policy', 'ingresses.networking.k8s.io', 'persistentvolumeclaims']) {
      expect(await can('vera', 'create', resource), resource).toBe('no');
      expect(await can('ed', 'create', resource), resource).toBe('yes');
    }
    expect(await can('ed', 'create', 'limitranges')).toBe('no');
    expect(await can('ed', 'list', 'priorityclasses.scheduling.k8s.io')).toBe('no');
    const denied = await kubectl(r, ['get', 'cronjobs', '-n', 'team', '--as=nobody']);
    expect(denied.stderr).toContain('Error from server (Forbidden): cronjobs.batch is forbidden: User "nobody" cannot list resource "cronjobs" in API group "batch" in the namespace "team"');
  }, 120_000);

  it('the apiserver\'s own objects: default/kubernetes with its endpoints, kube-root-ca.crt everywhere, system PriorityClasses, a default StorageClass', async () => {
    const svc = await http(r, 'GET', '/api/v1/namespaces/default/services/kubernetes');
    expect(svc.json.spec).toMatchObject({ clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1'], type: 'ClusterIP', ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }] });
    expect(svc.json.metadata.labels).toEqual({ component: 'apiserver', provider: 'kubernetes' });
    const slice = await http(r, 'GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes');
    expect(slice.json).toMatchObject({ addressType: 'IPv4', ports: [{ name: 'https', port: 6443, protocol: 'TCP' }], endpoints: [{ conditions: { ready: true } }] });
    expect((await http(r, 'GET', '/api/v1/namespaces/default/endpoints/kubernetes')).status).toBe(200);
    const pcs = await kubectl(r, ['get', 'priorityclasses', '-o', 'custom-columns=NAME:.metadata.name,VALUE:.value', '--no-headers']);
    expect(pcs.stdout.split('\n').map((l) => l.split(/\s+/).join(' '))).toEqual(expect.arrayContaining(['system-cluster-critical 2000000000', 'system-node-critical 2000001000']));
    const sc = await kubectl(r, ['get', 'storageclass']);
    expect(sc.stdout).toMatch(/standard \(default\)/);
    for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease', 'team']) {
      const cm = await waitFor(`kube-root-ca.crt in ${ns}`, async () => {
        const got = await http(r, 'GET', `/api/v1/namespaces/${ns}/configmaps/kube-root-ca.crt`);
        return got.status === 200 ? got.json : undefined;
      });
      expect(cm.data['ca.crt']).toBe(r.gateway.caCert.endsWith('\n') ? r.gateway.caCert : `${r.gateway.caCert}\n`);
    }
    expect((await kubectl(r, ['delete', 'configmap', 'kube-root-ca.crt', '-n', 'team'])).code).toBe(0);
    await waitFor('kube-root-ca.crt back in team', async () => ((await http(r, 'GET', '/api/v1/namespaces/team/configmaps/kube-root-ca.crt')).status === 200 ? true : undefined));
  });

  describe('pods as kubectl sees them', () => {
    beforeAll(async () => {
      expect((await kubectl(r, ['run', 'web', '--image=nginx', '-n', 'team'])).code).toBe(0);
      await waitFor('web Running', async () => ((await http(r, 'GET', '/api/v1/namespaces/team/pods/web')).json?.status?.phase === 'Running' ? true : undefined));
    });

    it('kubectl logs: the synthetic lines, --tail, --since, -c, --timestamps, -f', async () => {
      const logs = await kubectl(r, ['logs', 'web', '-n', 'team']);
      expect(logs.code, logs.stderr).toBe(0);
      const lines = logs.stdout.trim().split('\n');
      expect(lines[0]).toMatch(/^edgeplane simulated runtime: container "web" started from image "nginx" on node "node-1"$/);
      expect((await kubectl(r, ['logs', 'web', '-n', 'team', '--tail=1'])).stdout.trim()).toBe(lines.at(-1));
      expect((await kubectl(r, ['logs', 'web', '-n', 'team', '--since=1h'])).stdout.trim().split('\n')).toEqual(lines);
      expect((await kubectl(r, ['logs', 'web', '-n', 'team', '-c', 'web', '--timestamps'])).stdout).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z edgeplane/);
      const bad = await kubectl(r, ['logs', 'web', '-n', 'team', '-c', 'nope']);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain('container nope is not valid for pod web');
      // -f: the lines arrive while the stream stays open (kubectl is stopped once they are printed).
      const follow = await new Promise<string>((resolve, reject) => {
        const child = execFile('/usr/bin/kubectl', ['--kubeconfig', r.kubeconfig, 'logs', '-f', 'web', '-n', 'team'], { env: { ...process.env, HOME: r.dir } });
        let out = '';
        child.stdout!.on('data', (d) => {
          out += String(d);
          if (out.includes(lines.at(-1)!)) child.kill();
        });
        child.on('exit', () => resolve(out));
        child.on('error', reject);
        setTimeout(() => child.kill(), 20_000);
      });
      expect(follow.trim().split('\n')).toEqual(lines);
    });

    it('exec, attach and port-forward: kube\'s failed-dial answer, naming the simulated node', async () => {
      for (const [args, what] of [[['exec', 'web', '-n', 'team', '--', 'ls'], 'exec'], [['attach', 'web', '-n', 'team'], 'attach'],
        [['port-forward', 'pod/web', '-n', 'team', '0:80'], 'port-forward']] as const) {
        const out = await kubectl(r, [...args]);
        expect(out.code, what).toBe(1);
        expect(out.stderr, what).toContain(`error dialing backend: node "node-1" is simulated by edgeplane and has no container runtime: ${what} is not available`);
      }
      const plain = await http(r, 'GET', '/api/v1/namespaces/team/pods/web/exec?command=ls');
      expect(plain.status).toBe(400);
      expect(plain.json.message).toBe('Upgrade request required');
    });

    it('kubectl debug adds an ephemeral container', async () => {
      const out = await kubectl(r, ['debug', 'web', '-n', 'team', '--image=busybox', '-c', 'dbg', '--', 'sleep', '100']);
      expect(out.code, out.stderr).toBe(0);
      const pod = (await http(r, 'GET', '/api/v1/namespaces/team/pods/web')).json;
      expect(pod.spec.ephemeralContainers).toEqual([expect.objectContaining({ name: 'dbg', image: 'busybox', command: ['sleep', '100'] })]);
      // What kube refuses in an ephemeral container (validateFieldAllowList): resources with limits, ports, probes.
      const bad = await http(r, 'PATCH', '/api/v1/namespaces/team/pods/web/ephemeralcontainers',
        [{ op: 'add', path: '/spec/ephemeralContainers/-', value: { name: 'dbg2', image: 'busybox', resources: { limits: { cpu: '1' } } } }],
        { 'content-type': 'application/json-patch+json' });
      expect(bad.status, bad.text).toBe(422);
      expect(bad.json.details.causes).toEqual([{ reason: 'FieldValueForbidden', field: 'spec.ephemeralContainers[1].resources', message: 'Forbidden: cannot be set for an Ephemeral Container' }]);
    });
  });

  it('kubectl apply --prune -l without an allowlist prunes what left the manifests', async () => {
    const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}, namespace: team, labels: {app: pruned}}\n`;
    const first = await kubectl(r, ['apply', '--prune', '-l', 'app=pruned', '-f', '-'], `${cm('one')}---\n${cm('two')}`);
    expect(first.code, first.stderr).toBe(0);
    const second = await kubectl(r, ['apply', '--prune', '-l', 'app=pruned', '-f', '-'], cm('one'));
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('configmap/two pruned');
    expect((await http(r, 'GET', '/api/v1/namespaces/team/configmaps/two')).status).toBe(404);
  });

  it('the review types answer from the real authenticator and authorizer; kubectl certificate approve', async () => {
    const sar = await http(r, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview',
      spec: { user: 'vera', resourceAttributes: { namespace: 'team', verb: 'list', group: 'batch', resource: 'cronjobs' } },
    });
    expect(sar.status, sar.text).toBe(201);
    expect(sar.json.status).toMatchObject({ allowed: true });
    const local = await http(r, 'POST', '/apis/authorization.k8s.io/v1/namespaces/team/localsubjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1', kind: 'LocalSubjectAccessReview',
      spec: { user: 'vera', resourceAttributes: { namespace: 'team', verb: 'delete', group: 'batch', resource: 'cronjobs' } },
    });
    expect(local.json.status.allowed).toBe(false);
    const token = await http(r, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'e2e-admin-token' } });
    expect(token.json.status).toMatchObject({ authenticated: true, user: { username: expect.any(String) } });
    const bad = await http(r, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'nope' } });
    expect(bad.json.status.authenticated).toBeFalsy();
    const approve = await kubectl(r, ['certificate', 'approve', 'alice']);
    expect(approve.code, approve.stderr).toBe(0);
    const csrObj = (await http(r, 'GET', '/apis/certificates.k8s.io/v1/certificatesigningrequests/alice')).json;
    expect(csrObj.status.conditions).toEqual([expect.objectContaining({ type: 'Approved', status: 'True', reason: 'KubectlApprove' })]);
  });

  it('compact JSON ends with one newline, as kube\'s encoder writes it; /version is indented without one', async () => {
    for (const path of ['/api/v1/namespaces/team', '/api/v1/namespaces/team/pods', '/api/v1/namespaces/nope', '/api', '/apis', '/apis/batch/v1']) {
      const res = await fetch(`${r.gateway.url}${path}`, { headers: { authorization: 'Bearer e2e-admin-token', 'user-agent': 'kubectl/v1.32.0' } });
      const text = await res.text();
      expect(text.endsWith('}\n'), path).toBe(true);
      expect(text.endsWith('\n\n'), path).toBe(false);
    }
    const version = await (await fetch(`${r.gateway.url}/version`)).text();
    expect(version).toMatch(/^\{\n {2}"major": "1",\n/);
    expect(version.endsWith('}')).toBe(true);
    const conflict = await kubectl(r, ['create', 'namespace', 'team', '-o', 'json']);
    expect(conflict.stderr).toBe('Error from server (AlreadyExists): namespaces "team" already exists\n');
  });
});

