// Front door: the controller manager's settings, and the middleware that makes sure it runs. The first
// request an isolate serves (npm start sends one at startup) wakes the singleton Durable Object, whose
// alarm then keeps it running; CONTROLLERS = "off" (or "") turns the loops off.

import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from './env';
import { controllerManagerStub } from '../contract/names';
let started = false;

/** The controller manager itself runs in this isolate: no need to wake it. */
export function markControllersStarted(): void {
  started = true;
}

export const ensureControllers: MiddlewareHandler<AppEnv> = async (c, next) => {
  const manager = !started && c.get('settings').controllers ? controllerManagerStub(c.env) : undefined;
  if (manager) {
    started = true;
    const woken = manager.ensureRunning().then(() => undefined, (e: unknown) => {
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
