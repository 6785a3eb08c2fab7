// Durable Object shell of the controller manager (controllers/manager.ts): a singleton by name that runs
// the control loops, kept alive by an alarm every few seconds. It calls the Worker's own Hono app
// in-process for every request, as an ordinary client with internal identities
// (core/auth/internal-identity.ts), so authentication, RBAC, admission and the stores all apply.

import { DurableObject } from 'cloudflare:workers';
import { app } from '../worker/app';
import type { Bindings } from '../worker/env';
import { signingKey } from '../worker/settings';
import { markControllersStarted } from '../worker/controllers';
import { requireSettings, type Settings } from '../core/settings';
import { internalToken } from '../core/auth/internal-identity';
import { ControllerManager, type ManagerStats } from '../controllers/manager';
import type { ProxyRules } from '../controllers/kube-proxy';
import { REAL_CLOCK } from '../controllers/clock';

export const CONTROLLER_MANAGER_NAME = 'kube-controller-manager';
const KEEPALIVE_MS = 5_000;
// In-process requests need a host; nothing routes on it.
const INTERNAL_SERVER = 'https://edgeplane.internal';

export class ControllerManagerObject extends DurableObject<Bindings> {
  private manager: ControllerManager | undefined;
  private creating: Promise<ControllerManager> | undefined;
  private readonly settings: Settings = requireSettings(this.env);

  /** Starts the loops if they are not running; keeps the keep-alive alarm set. Idempotent. */
  async ensureRunning(): Promise<ManagerStats> {
    if (!this.settings.controllers) {
      await this.shutdown();
      return { leader: false, running: false, writes: 0, resourceVersions: {} };
    }
    markControllersStarted();
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

  override async alarm(): Promise<void> {
    if (!this.settings.controllers) return this.shutdown();
    await this.ensureRunning();
    await this.ctx.storage.setAlarm(Date.now() + KEEPALIVE_MS);
  }

  private async create(): Promise<ControllerManager> {
    try {
      const key = await signingKey(this.env);
      // kube's identity is hostname_uuid; the uuid is kept so a restarted singleton renews its own Lease
      // at once instead of waiting out leaseDuration as a stranger would.
      let id = await this.ctx.storage.get<string>('identity');
      if (!id) await this.ctx.storage.put('identity', (id = crypto.randomUUID()));
      const executionCtx = { waitUntil: (p: Promise<unknown>) => this.ctx.waitUntil(p), passThroughOnException() {}, props: {} };
      const manager = await ControllerManager.create({
        server: INTERNAL_SERVER,
        fetch: (input, init) => Promise.resolve(app.fetch(new Request(input, init), this.env, executionCtx as unknown as ExecutionContext)),
        tokenFor: (username) => internalToken(key, username),
        clock: REAL_CLOCK,
        identity: `edgeplane-controller-manager_${id}`,
        simulatedNodes: this.settings.simulatedNodes,
        eventTTLSeconds: this.settings.eventTtlSeconds,
        nodeMonitorGraceSeconds: this.settings.nodeMonitorGraceSeconds,
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
}
