// Client: the public API of the watch client (Node, browsers, Workers): one watch stream, a resuming
// watch, and an informer with a local cache.

export { createInformer, type Informer, type InformerHandlers, type InformerOptions } from './informer';
export { watch, type WatchOptions, type WatchResult } from './watcher';
export { openWatchStream, type StreamEnd, type WatchStreamOptions } from './watch-stream';
export { listAll, type ListOptions, type ListResult } from './list';
export { objectKey } from './cache';
export type { BackoffOptions } from './backoff';
export {
  ApiError,
  type ConnectionOptions,
  type EventType,
  type FetchFn,
  type KubeObject,
  type Status,
  type Transport,
  type WatchEvent,
  type WebSocketConstructor,
  type WebSocketLike,
} from './types';
