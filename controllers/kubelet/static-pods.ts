// Simulated kubelets: static pods. Each node's kubelet reads pod manifests from STATIC_POD_URL every
// STATIC_POD_CHECK_SECONDS (kube's --manifest-url and httpCheckFrequency, 20 s; one read serves every node, as
// they share the URL) and publishes a mirror pod for each (core/static-pods/manifests.ts), as kube's kubelet
// does (pkg/kubelet/kubelet.go SyncPod, HandlePodCleanups; pkg/kubelet/pod/mirror_client.go):
// - a static pod without a mirror pod gets one, created with the node's identity (`<name>-<node>`, nodeName,
//   the config annotations, the Node as controller owner); not while the Node is missing or being deleted;
// - a mirror pod that is being deleted, or whose config.mirror is not its static pod's current hash (the
//   manifest changed), is deleted at once (grace 0, UID precondition) and then created again — so a mirror pod
//   deleted through the API comes back, with a new UID;
// - a mirror pod on the node without a static pod (the manifest went, or someone created it through the API) is
//   deleted, once the source has been read at least once (kube waits for its sources to be ready).
// Its status is reported like any other pod's (simulated-nodes.ts), which leaves mirror pods' deletion here.
// A stopped node does nothing. Unreadable sources keep the last pods; bad documents are logged and skipped.

import type { KubeObject } from '../../client/types';
import { objectKey } from '../../client/cache';
import { ApiError } from '../../client/types';
import { isAlreadyExists, isConflict, isNotFound, RESOURCES, type Api } from '../api-client';
import type { Clock } from '../clock';
import type { SharedInformer } from '../informers';
import { logSyncError, macrotask, runWorker, WorkQueue } from '../workqueue';
import { isStopped } from './node-status';
import type { StaticPodSource } from './static-pod-source';
import {
  isMirrorPod, mirrorHash, mirrorPodFor, mirrorPodName, parseManifests, podDigest, seenTimestamp, staticPodHash,
} from '../../core/static-pods/manifests';

export const STATIC_POD_CHECK_MS = 20_000; // kubelet httpCheckFrequency / fileCheckFrequency

export interface StaticPodsDeps {
  apiFor: (node: string) => Api;
  pods: SharedInformer;
  nodes: SharedInformer;
  clock: Clock;
  nodeNames: string[]; // the kubelets that run the source's static pods
  allNodes?: string[]; // every simulated kubelet (default nodeNames): each removes orphaned mirror pods on its node
  source?: StaticPodSource; // none: no static pods, but orphaned mirror pods are still removed
  checkMs?: number;
  log?: (line: string) => void;
}

interface Wanted {
  node: string;
  pod: Record<string, unknown>; // as the manifest has it
  hash: string;
  seen: string;
}

const nodeOf = (p: KubeObject): string => (p.spec as { nodeName?: string } | undefined)?.nodeName ?? '';

export class StaticPods {
  readonly queue: WorkQueue;
  private readonly ours: Set<string>;
  private wanted = new Map<string, Wanted>(); // mirror pod key (ns/name) → its static pod
  private wantedOn = new Map<string, string[]>(); // node → the keys of its static pods
  private readonly mirrors = new Set<string>(); // keys of mirror pods on our nodes, from the informer
  private readonly refused = new Map<string, string>(); // key → hash whose create the API refused (logged once)
  private ready = false; // the source was read once: orphans may be removed
  private lastText: string | undefined;
  private failures = 0;
  private timer: unknown;
  private closed = false;
  private readonly log: (line: string) => void;

  constructor(private readonly d: StaticPodsDeps) {
    this.queue = new WorkQueue(d.clock);
    this.ours = new Set([...(d.allNodes ?? []), ...d.nodeNames]);
    this.log = d.log ?? ((line) => console.error(line));
    const seen = (p: KubeObject) => {
      const key = objectKey(p);
      if (this.ours.has(nodeOf(p)) && isMirrorPod(p)) this.mirrors.add(key);
      else this.mirrors.delete(key);
      if (this.mirrors.has(key) || this.wanted.has(key)) this.queue.add(key);
    };
    d.pods.addHandlers({
      add: seen, update: (p) => seen(p),
      delete: (p) => {
        const key = objectKey(p);
        this.mirrors.delete(key);
        if (this.wanted.has(key)) this.queue.add(key);
      },
    });
    // A node registered, restarted or changed: its static pods may now be publishable.
    const nodeChanged = (n: KubeObject) => {
      if (!this.ours.has(n.metadata.name!)) return;
      for (const key of this.wantedOn.get(n.metadata.name!) ?? []) this.queue.add(key);
    };
    d.nodes.addHandlers({ add: nodeChanged, update: (n) => nodeChanged(n) });
  }

  /** Reads the source now and then every checkMs; runs the workers. */
  start(workers = 1): Promise<void>[] {
    if (!this.d.source) this.markReady();
    else void this.poll().finally(() => this.schedule());
    return Array.from({ length: workers }, () => runWorker(this.queue, (k) => this.sync(k), { onError: logSyncError('kubelet static pods') }));
  }

  stop(): void {
    this.closed = true;
    this.d.clock.clearTimeout(this.timer);
    this.queue.shutDown();
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = this.d.clock.setTimeout(() => void this.poll().finally(() => this.schedule()), this.d.checkMs ?? STATIC_POD_CHECK_MS);
  }

  private markReady(): void {
    if (this.ready) return;
    this.ready = true;
    for (const key of this.mirrors) this.queue.add(key);
  }

  /** One read of the source: the static pods it names replace the previous ones. */
  async poll(): Promise<void> {
    const source = this.d.source;
    if (!source || this.closed) return;
    let text: string;
    try {
      text = await source.read();
    } catch (e) {
      // http.go: the first failures are logged, then it goes quiet until a read succeeds.
      if (this.failures++ < 3) this.log(`kubelet static pods: failed to read pods from ${source.location}: ${(e as Error).message}`);
      return;
    }
    if (this.failures > 0) this.log(`kubelet static pods: read pods from ${source.location} again`);
    this.failures = 0;
    for (const key of this.refused.keys()) this.queue.add(key); // kube retries each pod sync
    if (text === this.lastText) return this.markReady(); // unchanged since the last read
    this.lastText = text;
    const { pods, problems } = await parseManifests(text, macrotask);
    for (const p of problems) this.log(`kubelet static pods: ${source.location}: ${p}`);
    const now = seenTimestamp(this.d.clock.now());
    const next = new Map<string, Wanted>();
    const digests: string[] = [];
    for (const pod of pods) {
      digests.push(podDigest(pod)); // up to 64 KiB each: a pause between them, as parsing has
      await macrotask();
    }
    for (const node of this.d.nodeNames) {
      for (const [i, pod] of pods.entries()) {
        const meta = pod.metadata as { name: string; namespace?: string };
        const key = `${meta.namespace || 'default'}/${mirrorPodName(meta.name, node)}`;
        if (next.has(key)) {
          // config.go filterInvalidPods: a second pod of the same full name is dropped.
          if (node === this.d.nodeNames[0]) this.log(`kubelet static pods: ${source.location}: duplicate pod ${key}: skipped`);
          continue;
        }
        const hash = staticPodHash(digests[i], node, source.kind, source.location);
        const prior = this.wanted.get(key);
        next.set(key, { node, pod, hash, seen: prior?.hash === hash ? prior.seen : now });
      }
    }
    const previous = this.wanted;
    this.wanted = next;
    this.wantedOn = new Map();
    for (const [key, w] of next) {
      const keys = this.wantedOn.get(w.node);
      if (keys) keys.push(key);
      else this.wantedOn.set(w.node, [key]);
    }
    for (const [key, w] of next) if (previous.get(key)?.hash !== w.hash) this.queue.add(key);
    for (const key of previous.keys()) if (!next.has(key)) this.queue.add(key);
    this.markReady();
  }

  async sync(key: string): Promise<void> {
    const want = this.wanted.get(key);
    const pod = this.d.pods.get(key);
    if (!want) this.refused.delete(key);
    const node = want?.node ?? (pod ? nodeOf(pod) : '');
    if (!this.ours.has(node) || isStopped(this.d.nodes.get(node))) return;
    if (pod) {
      if (!isMirrorPod(pod) || nodeOf(pod) !== node) {
        // CreateMirrorPod would get AlreadyExists: kube logs it and keeps trying; we wait for that pod to go.
        if (want && this.refused.get(key) !== want.hash) {
          this.refused.set(key, want.hash);
          this.log(`kubelet static pods: mirror pod ${key}: a pod of that name exists and is not ${node}'s mirror pod`);
        }
        return;
      }
      if (!want && !this.ready) return; // sources not read yet: nothing is an orphan
      if (!pod.metadata.deletionTimestamp && want && mirrorHash(pod) === want.hash) return;
      // DeleteMirrorPod: grace 0, this UID only; the informer's delete brings the key back to create it again.
      try {
        await this.d.apiFor(node).delete(RESOURCES.pods, pod.metadata.namespace!, pod.metadata.name!, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid as string } });
      } catch (e) {
        if (!isNotFound(e) && !isConflict(e)) throw e;
      }
      return;
    }
    if (!want) return;
    const nodeObject = this.d.nodes.get(node);
    // kubelet.go: no mirror pod before the Node exists, nor once it is being deleted.
    if (!nodeObject?.metadata.uid || nodeObject.metadata.deletionTimestamp) return;
    const mirror = mirrorPodFor(want.pod, { node, nodeUid: String(nodeObject.metadata.uid), source: this.d.source!.kind, hash: want.hash, seen: want.seen });
    try {
      await this.d.apiFor(node).create(RESOURCES.pods, (mirror.metadata as { namespace: string }).namespace, mirror as unknown as KubeObject);
      this.refused.delete(key);
    } catch (e) {
      if (isAlreadyExists(e)) return; // the informer has not shown it yet
      // Refused (invalid, forbidden, namespace missing): logged once per manifest version; a new version, the
      // pod's name freed or the node changing tries again. Other failures are retried with backoff.
      if (e instanceof ApiError && e.code >= 400 && e.code < 500 && e.code !== 429) {
        if (this.refused.get(key) !== want.hash) this.log(`kubelet static pods: creating mirror pod ${key}: ${e.message}`);
        this.refused.set(key, want.hash);
        return;
      }
      throw e;
    }
  }
}
