// The Worker entry: the Hono front door plus the Durable Object classes it routes to. The only file that
// knows both sides of the contract (contract/): it hands the controller manager the app it calls in-process.

import { app } from './app';
import { signingKey } from './settings';
import { markControllersStarted } from './controllers';
import { controllerManagerObject } from '../durable-objects/controller-manager';

export { ResourceStore } from '../durable-objects/resource-store';
export { WatchReplica } from '../durable-objects/watch-replica';
export { Authorizer } from '../durable-objects/authorizer';
export class ControllerManagerObject extends controllerManagerObject({ fetch: app.fetch, signingKey, started: markControllersStarted }) {}
export default app;
