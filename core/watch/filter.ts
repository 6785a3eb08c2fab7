// Broadcast layer: what a watcher receives for one event, if anything. Selectors act on transitions:
// an object that starts matching arrives as ADDED, one that stops matching as DELETED
// (apiserver cache_watcher.go convertToWatchEvent).

import type { ParsedSelectors } from '../list/options';
import { matches } from '../list/query';
import type { EventType, WatchEvent } from './event';

export interface WatchScope {
  namespace: string; // '' for every namespace
  selectors: ParsedSelectors;
}

export function deliveryType(scope: WatchScope, ev: WatchEvent): EventType | undefined {
  if (scope.namespace && ev.namespace !== scope.namespace) return undefined;
  if (ev.type === 'ADDED') return matches(ev.object, scope.selectors) ? 'ADDED' : undefined;
  if (ev.type === 'DELETED') return matches(ev.object, scope.selectors) ? 'DELETED' : undefined;
  const now = matches(ev.object, scope.selectors);
  const before = ev.prev !== undefined && matches(ev.prev, scope.selectors);
  if (now) return before ? 'MODIFIED' : 'ADDED';
  return before ? 'DELETED' : undefined;
}
