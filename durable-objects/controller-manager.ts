// Durable Object shell of the controller manager (controllers/manager.ts): a singleton by name
// (contract/names.ts) that runs the control loops, kept alive by an alarm every few seconds. It calls the
// Worker's own app in-process for every request, as an ordinary client with internal identities
// (core/auth/internal-identity.ts), so authentication, RBAC, admission and the stores all apply. The Worker's
// entry (worker/index.ts), the one file that knows both sides, hands it the app: storage never imports routing.

import { DurableObject } from 'cloudflare:workers';
import { requireSettings, type Settings } from '../core/settings';
import { internalToken } from '../core/auth/internal-identity';
import { ControllerManager, type ManagerStats } from '../controllers/manager';
import type { ProxyRules } from '../controllers/kube-proxy';
import { REAL_CLOCK, type Clock } from '../controllers/clock';
import type { Bindings } from '../contract/bindings';
import type { ControllerManagerRpc } from '../contract/rpc';
import { clockSkewMs, fired } from '../contract/failpoints';

/** What the manager needs of the Worker it runs beside. */
export interface FrontDoor {
  /** The Worker's fetch handler (its Hono app), called in-process. */
  fetch(request: Request, env: Bindings, ctx: ExecutionContext): Response | Promise<Response>;
  /** The key internal tokens are signed with (worker/settings.ts). */
  signingKey(env: Bindings): Promise<Uint8Array>;
  /** The loops run in this isolate: its requests need not wake the singleton (worker/controllers.ts). */
  started(): void;
}

const KEEPALIVE_MS = 5_000;

// The loops' clock: the real one, off by the clock.skew failpoint while a fault test arms it (contract/failpoints.ts;
// unarmed, one check of an empty map). Timers keep real time, as a skewed wall clock's would.
const LOOPS_CLOCK: Clock = { ...REAL_CLOCK, now: () => Date.now() + clockSkewMs() };
// In-process requests need a host; nothing routes on it.
const INTERNAL_SERVER = 'https://edgeplane.internal';

/** The Durable Object class, built around the Worker's front door. */
export function controllerManagerObject(frontDoor: FrontDoor) {
  return class ControllerManagerObject extends DurableObject<Bindings> implements ControllerManagerRpc {
    private manager: ControllerManager | undefined;
    private creating: Promise<ControllerManager> | undefined;
    private readonly settings: Settings = requireSettings(this.env);

    /** Starts the loops if they are not running; keeps the keep-alive alarm set. Idempotent. */
    async ensureRunning(): Promise<ManagerStats> {
      if (!this.settings.controllers) {
        await this.shutdown();
        return { leader: false, running: false, writes: 0, resourceVersions: {} };
      }
      frontDoor.started();
      if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + KEEPALIVE_MS);
      const manager = await (this.creating ??= this.create());
      return manager.stats();
    }

    /** GET /_edgeplane/nodes/<node>/proxy-rules (worker/routes/proxy-rules.ts). */
    async proxyRules(node: string): Promise<ProxyRules | undefined> {
      return this.manager?.proxyRules(node);
    }

    async stats(): Promise<ManagerStats | undefined> {
      return this.manager?.stats();
    }

    async abort(): Promise<void> {
      this.ctx.abort('aborted by test hook');
    }

    override async alarm(): Promise<void> {
      if (!this.settings.controllers) return this.shutdown();
      await this.ensureRunning();
      await this.ctx.storage.setAlarm(Date.now() + KEEPALIVE_MS);
    }

    private async create(): Promise<ControllerManager> {
      try {
        const key = await frontDoor.signingKey(this.env);
        // kube's identity is hostname_uuid; the uuid is kept so a restarted singleton renews its own Lease
        // at once instead of waiting out leaseDuration as a stranger would.
        let id = await this.ctx.storage.get<string>('identity');
        if (!id) await this.ctx.storage.put('identity', (id = crypto.randomUUID()));
        const executionCtx = { waitUntil: (p: Promise<unknown>) => this.ctx.waitUntil(p), passThroughOnException() {}, props: {} };
        const manager = await ControllerManager.create({
          server: INTERNAL_SERVER,
          fetch: (input, init) => Promise.resolve(frontDoor.fetch(new Request(input, init), this.env, executionCtx as unknown as ExecutionContext)),
          tokenFor: (username) => internalToken(key, username),
          clock: LOOPS_CLOCK,
          resyncSeconds: this.settings.controllerResyncSeconds,
          dropEvent: (gr) => fired('informer.drop-event', gr),
          identity: `edgeplane-controller-manager_${id}`,
          simulatedNodes: this.settings.simulatedNodes,
          eventTTLSeconds: this.settings.eventTtlSeconds,
          nodeMonitorGraceSeconds: this.settings.nodeMonitorGraceSeconds,
          loadBalancerPool: this.settings.loadBalancerPool,
          rootCaCert: this.settings.rootCaCert,
          clusterSigning: this.settings.clusterSigningCert
            ? { cert: this.settings.clusterSigningCert, key: this.env.CLUSTER_SIGNING_KEY ?? '', durationSeconds: this.settings.clusterSigningDurationSeconds }
            : undefined,
          staticPodUrl: this.settings.staticPodUrl,
          staticPodPath: this.settings.staticPodPath,
          staticPodCheckSeconds: this.settings.staticPodCheckSeconds,
          staticPodNodes: this.settings.staticPodNodes,
          manifestFetch: (url, init) => fetch(url, init),
        });
        manager.run();
        this.manager = manager;
        return manager;
      } catch (e) {
        this.creating = undefined;
        throw e;
      }
    }

    private async shutdown(): Promise<void> {
      const m = this.manager;
      this.manager = undefined;
      this.creating = undefined;
      await m?.stop();
      await this.ctx.storage.deleteAlarm();
    }
  };
}
