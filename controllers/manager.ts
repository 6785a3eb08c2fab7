// Controllers: the controller manager (kube-controller-manager's role): shared informers, the Lease that
// makes one instance the leader, and the controllers, each writing with its own identity. Everything
// goes through the API's front door via the injected fetch.

import type { FetchFn } from '../client/types';
import { RESOURCE_TYPES, type ResourceType } from '../core/registry';
import { APISERVER_USER, CONTROLLER_MANAGER_USER, controllerUsername, nodeUsername, SCHEDULER_USER, type ControllerAccount } from '../core/auth/internal-identity';
import { HttpApi, RESOURCES, type Api, type ResourceRef } from './api-client';
import type { Clock } from './clock';
import { ApiEventRecorder } from './events';
import { InformerFactory } from './informers';
import { KCM_LEASE, LeaderElector } from './leader-election';
import { ReplicaSetController, COMPONENT as RS_COMPONENT } from './replicaset';
import { workloadLoops } from './workload-loops';
import { DeploymentController, COMPONENT as DEPLOY_COMPONENT } from './deployment';
import { GarbageCollector, type Collected } from './garbage-collector';
import { ServiceAccountController } from './serviceaccount';
import { RootCAPublisher } from './root-ca-publisher';
import { ClusterRoleAggregationController, CLUSTER_ROLES } from './clusterrole-aggregation';
import { FlowControlConfigController, FLOW_SCHEMAS, PRIORITY_LEVELS } from './flowcontrol-config';
import { apiLister, RESOURCE_QUOTAS, ResourceQuotaController } from './resourcequota';
import { NODE_LEASE_RENEW_MS, nodeName } from './kubelet/node-status';
import { SimulatedNodes } from './kubelet/simulated-nodes';
import { StaticPods } from './kubelet/static-pods';
import { urlSource, type FetchLike, type StaticPodSource } from './kubelet/static-pod-source';
import { Scheduler, COMPONENT as SCHEDULER_COMPONENT } from './scheduler/scheduler';
import { NodeLifecycleController, NODE_COMPONENT, EVICTION_COMPONENT } from './node-lifecycle';
import { EndpointSliceController, EndpointsController, ENDPOINTS, ENDPOINTSLICES, SERVICES, SLICE_COMPONENT } from './endpointslice';
import { KubeProxies, KUBE_PROXY_USER, type ProxyRules } from './kube-proxy';
import { NamespaceController } from './namespace';
import { EventTTLSweeper, DEFAULT_EVENT_TTL_SECONDS } from './event-ttl';
import type { QueueStats, WorkQueue } from './workqueue';
import { storageLoops } from './storage-loops';
import { DisruptionController, COMPONENT as DISRUPTION_COMPONENT } from './disruption';
import { parsePool, ServiceLoadBalancerController, COMPONENT as LB_COMPONENT } from './service-lb';
import { apiMetricsClient, apiScaleClient, HorizontalPodAutoscalerController, HPAS, COMPONENT as HPA_COMPONENT } from './hpa';
import { ApiServiceAvailabilityController, APISERVICES } from './apiservice';
import { CrdRegistrationController, CRDS } from './apiservice-crd';
import { CsrSigningController, CSRS, webCryptoSigner, COMPONENT as CSR_COMPONENT } from './csr';
import { CsrApprovingController } from './csr-approver';

export interface ManagerOptions {
  server: string;
  fetch: FetchFn;
  tokenFor: (username: string) => Promise<string>;
  clock: Clock;
  identity: string; // the Lease holderIdentity
  simulatedNodes: number; // 0: no pod-readiness simulator
  eventTTLSeconds?: number; // EVENT_TTL_SECONDS (default 3600)
  nodeMonitorGraceSeconds?: number; // node lifecycle: Lease silence before a node is Unknown (default 40)
  loadBalancerPool?: string; // LOAD_BALANCER_POOL: the CIDR LoadBalancer Services get addresses from ('' or bad: none)
  rootCaCert?: string; // ROOT_CA_CERT: ca.crt of every namespace's kube-root-ca.crt
  clusterSigning?: { cert: string; key: string; durationSeconds: number }; // CLUSTER_SIGNING_CERT/_KEY: the CSR signer's CA
  resyncSeconds?: number; // CONTROLLER_RESYNC_SECONDS: the informers' resync period (default informers.ts RESYNC_PERIOD_MS)
  dropEvent?: (groupResource: string) => boolean; // fault tests: lose an event on its way to a handler
  staticPodUrl?: string; // STATIC_POD_URL: static pod manifests ('' : none)
  staticPodPath?: string; // STATIC_POD_PATH: the local folder STATIC_POD_URL serves ('': a plain URL)
  staticPodCheckSeconds?: number; // STATIC_POD_CHECK_SECONDS (default 20)
  staticPodNodes?: readonly string[]; // STATIC_POD_NODES: the nodes that run them (empty: all)
  manifestFetch?: FetchLike; // the platform's fetch, for STATIC_POD_URL (not the front door)
}

// The types the garbage collector follows (everything deletable that carries ownerReferences in practice). It reads
// their metadata only: types no other loop reads (ConfigMaps, Secrets) are cached as metadata only.
const COLLECTED = ['core/pods', 'core/replicationcontrollers', 'apps/controllerrevisions', 'apps/replicasets', 'apps/deployments', 'apps/statefulsets', 'apps/daemonsets', 'batch/jobs', 'batch/cronjobs', 'core/persistentvolumeclaims',
  'core/services', 'core/configmaps', 'core/secrets', 'core/serviceaccounts', 'discovery.k8s.io/endpointslices'];

export const refOf = (t: ResourceType): ResourceRef => ({ group: t.group, version: t.version, resource: t.resource, namespaced: t.namespaced });
const apiVersionOf = (t: ResourceType) => (t.group ? `${t.group}/${t.version}` : t.version);

export interface ManagerStats {
  leader: boolean;
  running: boolean;
  writes: number;
  startedAt?: number;
  resourceVersions: Record<string, string | undefined>;
  loops?: Record<string, QueueStats>; // per work queue, by kube's workqueue name (while the loops run)
  metadataOnly?: string[]; // informers that keep metadata only
}

export class ControllerManager {
  private readonly elector: LeaderElector;
  private informers: InformerFactory | undefined;
  private proxyInformers: InformerFactory | undefined;
  private proxies: KubeProxies | undefined;
  private sweeper: EventTTLSweeper | undefined;
  private workers: Promise<void>[] = [];
  private stopQueues: (() => void)[] = [];
  private queues: Record<string, Pick<WorkQueue, 'stats' | 'shutDown'>> = {};
  private renewTimer: unknown;
  private stopped = false;
  private starting: Promise<void> | undefined;
  private writes = 0;
  private startedAt: number | undefined;

  // The scheduler runs in this object while it leads, but holds its own Lease (kube-system/kube-scheduler), written as
  // system:kube-scheduler, so `kubectl get lease -n kube-system` shows both holders as on a cluster.
  private readonly schedulerElector: LeaderElector;

  constructor(private readonly o: ManagerOptions, managerApi: Api, schedulerApi: Api) {
    this.elector = new LeaderElector(managerApi, o.clock, { ...KCM_LEASE, identity: o.identity });
    this.schedulerElector = new LeaderElector(schedulerApi, o.clock, { ...KCM_LEASE, name: 'kube-scheduler', identity: o.identity });
  }

  static async create(o: ManagerOptions): Promise<ControllerManager> {
    const token = await o.tokenFor(CONTROLLER_MANAGER_USER);
    const schedulerToken = await o.tokenFor(SCHEDULER_USER);
    let manager: ControllerManager | undefined;
    const onWrite = () => manager && manager.writes++;
    const api = new HttpApi({ server: o.server, fetch: o.fetch, token: async () => token, onWrite });
    const schedulerApi = new HttpApi({ server: o.server, fetch: o.fetch, token: async () => schedulerToken, onWrite });
    manager = new ControllerManager(o, api, schedulerApi);
    return manager;
  }

  stats(): ManagerStats {
    return {
      leader: this.elector.isLeader(), running: this.workers.length > 0, writes: this.writes, startedAt: this.startedAt,
      resourceVersions: this.informers?.resourceVersions() ?? {},
      loops: Object.fromEntries(Object.entries(this.queues).map(([name, q]) => [name, q.stats()])),
      metadataOnly: this.informers?.metadataOnlyTypes() ?? [],
    };
  }

  /** One election round (every retryPeriod): acquire or renew, start the loops on winning, stop them on losing. */
  async tick(): Promise<void> {
    if (this.stopped) return;
    const leader = await this.elector.tryAcquireOrRenew();
    if (leader) await this.schedulerElector.tryAcquireOrRenew().catch((e) => console.error(`kube-scheduler lease: ${(e as Error).message}`));
    if (leader && this.workers.length === 0) {
      // In the background: a first list that keeps failing must not stop the Lease from being renewed.
      this.starting ??= this.startLoops()
        .catch((e) => console.error(`controller manager: starting the loops failed: ${(e as Error).message}`))
        .finally(() => { this.starting = undefined; });
    } else if (!leader && this.workers.length > 0) {
      console.error(`leaderelection lost: ${this.o.identity}`);
      await this.stopLoops();
    }
  }

  /** Resolves once the loops started by the last tick() are running (or failed to start). */
  async started(): Promise<void> {
    await this.starting;
  }

  /** Runs tick() every retryPeriod until stop(). */
  run(): void {
    const loop = () => {
      this.tick().catch((e) => console.error(`controller manager: ${(e as Error).message}`)).finally(() => {
        if (!this.stopped) this.renewTimer = this.o.clock.setTimeout(loop, KCM_LEASE.retryPeriodMs);
      });
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.o.clock.clearTimeout(this.renewTimer);
    await this.stopLoops(); // stops informers still listing, so a start in progress ends
    await this.starting;
    await this.stopLoops();
  }

  /** The rule table of the kube-proxy stand-in on `node`; undefined when the loops or that node do not run. */
  async proxyRules(node: string): Promise<ProxyRules | undefined> {
    return this.proxies?.rulesFor(node);
  }

  private async apiAs(username: string): Promise<HttpApi> {
    const token = await this.o.tokenFor(username);
    return new HttpApi({ server: this.o.server, fetch: this.o.fetch, token: async () => token, onWrite: () => this.writes++ });
  }

  /** kube's csrsigning controllers, when a cluster CA is configured and loads (else logged and skipped, as kube skips them). */
  private async csrSigner(informers: InformerFactory): Promise<CsrSigningController | undefined> {
    const s = this.o.clusterSigning;
    if (!s) return undefined;
    let signer;
    try {
      signer = await webCryptoSigner(s.cert, s.key);
    } catch (e) {
      console.error(`${CSR_COMPONENT}: CLUSTER_SIGNING_CERT/CLUSTER_SIGNING_KEY: ${(e as Error).message}; CSRs are not signed`);
      return undefined;
    }
    return new CsrSigningController({
      api: await this.controllerApi('certificate-controller'), csrs: informers.for(CSRS), signer, clock: this.o.clock,
      signingDurationSeconds: s.durationSeconds, randomBytes: (n) => crypto.getRandomValues(new Uint8Array(n)),
    });
  }

  private async controllerApi(account: ControllerAccount): Promise<HttpApi> {
    return this.apiAs(controllerUsername(account));
  }

  private async startLoops(): Promise<void> {
    const { clock } = this.o;
    const informers = new InformerFactory({
      server: this.o.server, token: await this.o.tokenFor(CONTROLLER_MANAGER_USER), fetch: this.o.fetch,
      onError: (resource, e) => console.error(`informer ${resource}: ${(e as Error).message}`),
      resyncPeriodMs: this.o.resyncSeconds === undefined ? undefined : this.o.resyncSeconds * 1000, dropEvent: this.o.dropEvent,
    });
    const pods = informers.for(RESOURCES.pods);
    const replicaSets = informers.for(RESOURCES.replicasets);
    const deployments = informers.for(RESOURCES.deployments);
    const namespaces = informers.for(RESOURCES.namespaces);
    const accounts = informers.for(RESOURCES.serviceaccounts);

    const rsApi = await this.controllerApi('replicaset-controller');
    const rs = new ReplicaSetController({ api: rsApi, replicaSets, pods, clock, recorder: new ApiEventRecorder(rsApi, RS_COMPONENT, clock) });
    const deployApi = await this.controllerApi('deployment-controller');
    const deploy = new DeploymentController({ api: deployApi, deployments, replicaSets, pods, clock, recorder: new ApiEventRecorder(deployApi, DEPLOY_COMPONENT, clock) });
    const collected: Collected[] = COLLECTED.map((name) => RESOURCE_TYPES.find((t) => `${t.group || 'core'}/${t.resource}` === name)!)
      .map((t) => ({ ref: refOf(t), kind: t.kind, apiVersion: apiVersionOf(t), informer: informers.metadataFor(refOf(t)) }));
    const gc = new GarbageCollector({
      api: await this.controllerApi('generic-garbage-collector'), types: collected, clock,
      resolve: (apiVersion, kind) => {
        const t = RESOURCE_TYPES.find((x) => x.stored && apiVersionOf(x) === apiVersion && x.kind === kind);
        return t && refOf(t);
      },
    });
    const sa = new ServiceAccountController(await this.controllerApi('service-account-controller'), namespaces, accounts, clock);
    const quotaApi = await this.controllerApi('resourcequota-controller');
    const quotaController = new ResourceQuotaController({
      api: quotaApi, quotas: informers.for(RESOURCE_QUOTAS), pods, clock, list: apiLister((path) => quotaApi.request('GET', path)),
      services: informers.for(SERVICES), claims: informers.for(RESOURCES.persistentvolumeclaims),
    });
    const rootCA = new RootCAPublisher(await this.controllerApi('root-ca-cert-publisher'), namespaces, informers.metadataFor(RESOURCES.configmaps), this.o.rootCaCert ?? '', clock);
    const aggregation = new ClusterRoleAggregationController(await this.controllerApi('clusterrole-aggregation-controller'), informers.for(CLUSTER_ROLES), clock);
    const nodes = informers.for(RESOURCES.nodes);
    // kube-scheduler: its own identity (system:kube-scheduler), in this object rather than behind its own Lease.
    const schedulerApi = await this.apiAs(SCHEDULER_USER);
    const scheduler = new Scheduler({
      api: schedulerApi, pods, nodes, clock, recorder: new ApiEventRecorder(schedulerApi, SCHEDULER_COMPONENT, clock),
      claims: informers.for(RESOURCES.persistentvolumeclaims), volumes: informers.for(RESOURCES.persistentvolumes), storageClasses: informers.for(RESOURCES.storageclasses),
    });
    const nodeApi = await this.controllerApi('node-controller');
    // Taint-based eviction writes as node-controller, as kube's does (its own ServiceAccount has no role in kube).
    const evictionApi = nodeApi;
    const lifecycle = new NodeLifecycleController({
      api: nodeApi, evictionApi, nodes, pods, leases: informers.for(RESOURCES.leases), clock,
      recorder: new ApiEventRecorder(nodeApi, NODE_COMPONENT, clock), evictionRecorder: new ApiEventRecorder(evictionApi, EVICTION_COMPONENT, clock),
      graceMs: (this.o.nodeMonitorGraceSeconds ?? 40) * 1000,
    });
    const configMapMeta = informers.metadataFor(RESOURCES.configmaps);
    const secretMeta = informers.metadataFor(RESOURCES.secrets);
    const claimInformer = informers.for(RESOURCES.persistentvolumeclaims);
    let simulator: SimulatedNodes | undefined;
    let staticPods: StaticPods | undefined;
    if (this.o.simulatedNodes > 0) {
      const nodeApis = new Map<string, Api>();
      const recorders = new Map<string, ApiEventRecorder>();
      for (let i = 1; i <= this.o.simulatedNodes; i++) {
        const api = await this.apiAs(nodeUsername(nodeName(i)));
        nodeApis.set(nodeName(i), api);
        recorders.set(nodeName(i), new ApiEventRecorder(api, 'kubelet', clock, nodeName(i)));
      }
      simulator = new SimulatedNodes({
        apiFor: (n) => nodeApis.get(n)!, recorderFor: (n) => recorders.get(n)!, pods, nodes, clock, count: this.o.simulatedNodes,
        leaseRenewMs: Math.min(NODE_LEASE_RENEW_MS, ((this.o.nodeMonitorGraceSeconds ?? 40) * 1000) / 4),
        mounts: {
          // Existence is all a mount needs here: the collector's metadata-only informers answer it.
          configMap: (ns, name) => !!configMapMeta.get(`${ns}/${name}`), secret: (ns, name) => !!secretMeta.get(`${ns}/${name}`),
          claim: (ns, name) => claimInformer.get(`${ns}/${name}`),
        },
      });
      const all = Array.from({ length: this.o.simulatedNodes }, (_, i) => nodeName(i + 1));
      const named = this.o.staticPodNodes ?? [];
      let source: StaticPodSource | undefined;
      try {
        if (this.o.staticPodUrl) source = urlSource(this.o.staticPodUrl, this.o.manifestFetch ?? ((u, init) => fetch(u, init)), this.o.staticPodPath);
      } catch (e) {
        console.error(`STATIC_POD_URL: ${(e as Error).message}`);
      }
      staticPods = new StaticPods({
        apiFor: (n) => nodeApis.get(n)!, pods, nodes, clock, source, checkMs: (this.o.staticPodCheckSeconds ?? 20) * 1000,
        nodeNames: named.length ? all.filter((n) => named.includes(n)) : all, allNodes: all,
      });
    }
    const workloads = await workloadLoops({ informers, pods, clock, apiFor: (a) => this.controllerApi(a) });
    const services = informers.for(SERVICES);
    const slices = informers.for(ENDPOINTSLICES);
    const lbApi = await this.controllerApi('service-controller');
    const pool = parsePool(this.o.loadBalancerPool ?? '');
    if (this.o.loadBalancerPool && !pool) console.error(`LOAD_BALANCER_POOL: not an IPv4 CIDR: ${this.o.loadBalancerPool}`);
    const loadBalancers = new ServiceLoadBalancerController(lbApi, services, pool, new ApiEventRecorder(lbApi, LB_COMPONENT, clock), clock);
    const sliceApi = await this.controllerApi('endpointslice-controller');
    const sliceController = new EndpointSliceController({
      api: sliceApi, services, pods, nodes, slices, clock, recorder: new ApiEventRecorder(sliceApi, SLICE_COMPONENT, clock),
    });
    const endpoints = new EndpointsController({ api: await this.controllerApi('endpoint-controller'), services, pods, endpoints: informers.for(ENDPOINTS), clock });
    const storage = await storageLoops({ informers, pods, clock, apiFor: (a) => this.controllerApi(a) });
    const disruptionApi = await this.controllerApi('disruption-controller');
    const disruption = new DisruptionController({
      api: disruptionApi, pdbs: informers.for(RESOURCES.poddisruptionbudgets), pods, replicaSets, deployments,
      replicationControllers: informers.for(RESOURCES.replicationcontrollers), statefulSets: informers.for(RESOURCES.statefulsets),
      recorder: new ApiEventRecorder(disruptionApi, DISRUPTION_COMPONENT, clock), clock,
    });
    const hpaApi = await this.controllerApi('horizontal-pod-autoscaler');
    const hpaController = new HorizontalPodAutoscalerController({
      api: hpaApi, hpas: informers.for(HPAS), pods, scales: apiScaleClient(hpaApi, clock), metrics: apiMetricsClient(hpaApi),
      recorder: new ApiEventRecorder(hpaApi, HPA_COMPONENT, clock), clock,
    });
    // kube-aggregator's availability loop: in kube-apiserver, as its loopback identity.
    const apiServiceController = new ApiServiceAvailabilityController({
      api: await this.apiAs(APISERVER_USER), apiServices: informers.for(APISERVICES), services, endpoints: informers.for(ENDPOINTS), clock,
    });
    const crdRegistration = new CrdRegistrationController({ api: apiServiceController.api, crds: informers.for(CRDS), apiServices: informers.for(APISERVICES), clock });
    const csrSigner = await this.csrSigner(informers);
    const csrApprover = new CsrApprovingController({ api: await this.controllerApi('certificate-controller'), csrs: informers.for(CSRS), clock });
    // kube-apiserver's API Priority and Fairness configuration consumer and producer: as its loopback identity.
    const flowControl = new FlowControlConfigController(await this.apiAs(APISERVER_USER), informers.for(FLOW_SCHEMAS), informers.for(PRIORITY_LEVELS), clock);
    const nsController = new NamespaceController(await this.controllerApi('namespace-controller'), namespaces, clock);
    const sweeper = new EventTTLSweeper(await this.controllerApi('generic-garbage-collector'), informers.for(RESOURCES.events), clock, this.o.eventTTLSeconds ?? DEFAULT_EVENT_TTL_SECONDS);
    // kube-proxy: its own informers as system:kube-proxy, shared by the followers of every simulated node.
    const proxyInformers = new InformerFactory({
      server: this.o.server, token: await this.o.tokenFor(KUBE_PROXY_USER), fetch: this.o.fetch,
      onError: (resource, e) => console.error(`kube-proxy informer ${resource}: ${(e as Error).message}`),
    });
    const proxies = new KubeProxies(Array.from({ length: this.o.simulatedNodes }, (_, i) => nodeName(i + 1)), proxyInformers.for(SERVICES), proxyInformers.for(ENDPOINTSLICES));
    this.informers = informers;
    this.proxyInformers = proxyInformers;
    const queues: Record<string, Pick<WorkQueue, 'stats' | 'shutDown'>> = {
      ...workloads.queues, replicaset: rs.queue, deployment: deploy.queue, garbage_collector_attempt_to_delete: gc.attemptToDelete,
      garbage_collector_attempt_to_orphan: gc.attemptToOrphan, serviceaccount: sa.queue, root_ca_cert_publisher: rootCA.queue, scheduler: scheduler.queue,
      endpoint_slice: sliceController.queue, endpoint: endpoints.queue, namespace: nsController.queue,
      ClusterRoleAggregator: aggregation.queue, ...storage.queues, disruption: disruption.queue, service: loadBalancers.queue,
      resource_quota_controller_resource_quota_primary: quotaController.queue, horizontalpodautoscaler: hpaController.queue,
      APIServiceAvailability: apiServiceController.queue, crd_autoregistration_controller: crdRegistration.queue,
      ...(csrSigner ? { certificate: csrSigner.queue } : {}), certificate_approver: csrApprover.queue, priority_and_fairness_config_queue: flowControl.queue,
    };
    this.queues = {
      ...queues, node_lifecycle_controller: lifecycle.nodeQueue, node_lifecycle_controller_pods: lifecycle.podQueue,
      ...(simulator ? { kubelet: simulator.queue } : {}), ...(staticPods ? { kubelet_static_pods: staticPods.queue } : {}),
    };
    this.stopQueues = [
      ...Object.values(queues).map((q) => () => q.shutDown()),
      () => lifecycle.stop(), ...(simulator ? [() => simulator.stop()] : []), ...(staticPods ? [() => staticPods.stop()] : []), () => void sweeper.stop(),
      () => flowControl.stop(),
    ];
    try {
      await Promise.all([informers.start(), proxyInformers.start()]); // WaitForCacheSync: no controller acts on a partial view
      this.workers = [...workloads.run(), ...rs.run(5), ...deploy.run(5), ...gc.run(5), ...sa.run(1), ...scheduler.run(4), ...lifecycle.run(2),
        ...(simulator ? await simulator.start(2) : []), ...(staticPods ? staticPods.start(1) : []), ...sliceController.run(5), ...endpoints.run(5), ...nsController.run(10),
        ...aggregation.run(5), ...storage.run(), ...disruption.run(1), ...loadBalancers.run(1), ...rootCA.run(1), ...quotaController.run(5), ...hpaController.run(5), ...apiServiceController.run(2), ...crdRegistration.run(1),
        ...(csrSigner ? csrSigner.run(5) : []), ...csrApprover.run(5), ...flowControl.run(1)];
      sweeper.start();
      this.proxies = proxies;
      this.sweeper = sweeper;
    } catch (e) {
      await this.stopLoops();
      throw e;
    }
    this.startedAt = clock.now();
  }

  private async stopLoops(): Promise<void> {
    for (const stop of this.stopQueues) stop();
    this.stopQueues = [];
    this.queues = {};
    await this.sweeper?.stop();
    this.sweeper = undefined;
    this.proxies = undefined;
    await this.informers?.stop();
    this.informers = undefined;
    await this.proxyInformers?.stop();
    this.proxyInformers = undefined;
    await Promise.all(this.workers);
    this.workers = [];
  }
}
