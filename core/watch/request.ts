// Broadcast layer: a watch's query parameters turned into what the hub needs, with kube-apiserver's
// resourceVersion semantics: "" or "0" start with the current state, N resumes after N, and
// sendInitialEvents=true is client-go's WatchList.

import type { ResourceType } from '../registry';
import { parseListOptions, parseSelectors } from '../list/options';
import { requiredValue } from '../selectors/field-selector';
import { badRequest, StatusError } from '../status';
import type { WatchRequest } from './hub';

export interface WatchTarget {
  namespace: string;
  name: string; // a watch on one object's path (legacy /watch/.../name)
  query: string; // URL search string
  table: boolean; // Accept asked for a meta.k8s.io Table
}

export interface WatchTimeouts {
  now: number;
  minTimeoutSeconds: number; // apiserver --min-request-timeout (1800 s): the default is random in [min, 2*min)
  random: () => number;
}

export function parseWatchRequest(type: ResourceType, target: WatchTarget, t: WatchTimeouts): WatchRequest {
  const query = new URLSearchParams(target.query);
  if (target.name) {
    // apiserver handlers/get.go: a name in the path becomes a metadata.name field selector.
    const existing = query.get('fieldSelector') ?? '';
    const named = existing ? parseSelectors({ labelSelector: '', fieldSelector: existing }, type) : undefined;
    const wanted = named && requiredValue(named.fields, 'metadata.name');
    if (named && wanted !== undefined && wanted !== target.name) {
      throw new StatusError(badRequest("fieldSelector metadata.name doesn't match requested name"));
    }
    query.set('fieldSelector', existing ? `${existing},metadata.name=${target.name}` : `metadata.name=${target.name}`);
  }
  const opts = parseListOptions(query, true);
  const selectors = parseSelectors(opts, type);
  const fromState = opts.resourceVersion === '' || opts.resourceVersion === '0';
  const sendInitialEvents = opts.sendInitialEvents ?? fromState;
  const timeoutMs = opts.timeoutSeconds > 0
    ? opts.timeoutSeconds * 1000
    : t.minTimeoutSeconds * 1000 * (1 + t.random());
  return {
    scope: { namespace: target.namespace, selectors },
    indexKey: {
      namespace: target.namespace,
      name: requiredValue(selectors.fields, 'metadata.name'),
      trigger: type.watchIndexField ? requiredValue(selectors.fields, type.watchIndexField) : undefined,
    },
    format: target.table ? 'table' : 'json',
    bookmarks: opts.allowWatchBookmarks,
    deadline: t.now + timeoutMs,
    // kube-apiserver 1.32 (WatchList on) serves a plain RV ""/"0" watch as a watch-list too, so the
    // initial-events-end bookmark follows the initial state whenever bookmarks are allowed.
    initialEvents: sendInitialEvents,
    watchList: sendInitialEvents,
    // No initial state and no resourceVersion: start from the newest revision.
    after: !sendInitialEvents && fromState ? undefined : opts.revision,
  };
}
