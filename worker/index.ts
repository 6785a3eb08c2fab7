// The Worker entry: the Hono front door plus the Durable Object classes it routes to.

import { app } from './app';

export { ResourceStore } from '../durable-objects/resource-store';
export { WatchReplica } from '../durable-objects/watch-replica';
export { Authorizer } from '../durable-objects/authorizer';
export { ControllerManagerObject } from '../durable-objects/controller-manager';
export default app;
