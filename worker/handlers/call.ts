// Front door: what a resource handler is given (worker/handlers/resource.ts routes each verb to its own module).

import type { Context } from 'hono';
import type { ResourceRequest } from '../../core/request-info';
import type { ResourceType } from '../../core/registry';
import type { ApiView } from '../../core/views/view';
import type { AppEnv } from '../env';

export type Ctx = Context<AppEnv>;

export interface ResourceCall {
  /** The type whose store serves the request: the one asked for, or the one its view is over (core/views). */
  type: ResourceType;
  info: ResourceRequest;
  url: URL;
  /** The API the store answers in, when not its own type's (events.k8s.io/v1 Events, a CRD's other version). */
  view?: ApiView;
}

export type Handler = (c: Ctx, call: ResourceCall) => Promise<Response>;
