// Front door: the controller manager's settings, and the middleware that makes sure it runs. The first
// request an isolate serves (npm start sends one at startup) wakes the singleton Durable Object, whose
// alarm then keeps it running; CONTROLLERS = "" or "off" turns the loops off.

import type { MiddlewareHandler } from 'hono';
import type { AppEnv, Bindings } from './env';
import { controllersEnabled as controllersSetting } from '../core/gc-finalizers';

export const DEFAULT_SIMULATED_NODES = 3;

export function controllersEnabled(env: Partial<Bindings>): boolean {
  return controllersSetting(env.CONTROLLERS);
}

/** SIMULATED_NODES: simulated kubelets (controllers/kubelet/; default 3, 0 turns them off). */
export function simulatedNodes(env: Partial<Bindings>): number {
  const raw = env.SIMULATED_NODES;
  const n = Number(raw);
  if (raw === undefined || raw.trim() === '' || !Number.isInteger(n) || n < 0) return DEFAULT_SIMULATED_NODES;
  return Math.min(n, 250);
}

/** NODE_MONITOR_GRACE_SECONDS: Lease silence before the node controller marks a node Unknown (default 40). */
export function nodeMonitorGraceSeconds(env: Partial<Bindings>): number {
  const raw = env.NODE_MONITOR_GRACE_SECONDS;
  const n = Number(raw);
  return raw === undefined || raw.trim() === '' || !Number.isFinite(n) || n <= 0 ? 40 : n;
}

let started = false;

/** The controller manager itself runs in this isolate: no need to wake it. */
export function markControllersStarted(): void {
  started = true;
}

export const ensureControllers: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (!started && controllersEnabled(c.env) && c.env.CONTROLLER_MANAGER) {
    started = true;
    const ns = c.env.CONTROLLER_MANAGER;
    const woken = ns.get(ns.idFromName('kube-controller-manager')).ensureRunning().then(() => undefined, (e: unknown) => {
      started = false; // try again with the next request
      console.error(`controller manager did not start: ${(e as Error)?.message ?? e}`);
    });
    try {
      c.executionCtx.waitUntil(woken);
    } catch {
      // No execution context (an in-process call): the promise runs on by itself.
    }
  }
  await next();
};
