// Core: how many seats a request occupies (kube's apiserver/pkg/util/flowcontrol/request: width.go,
// list_work_estimator.go, mutating_work_estimator.go, config.go). One seat, except a list: one seat per 100
// objects it will go through (from the stored count when known; unknown counts as kube's "not found": one seat),
// at most the level's maximum; a watch takes one seat at its start (its initial list when it asks for initial
// events) and none while it streams, as kube releases a watch's seats once it is initialized. A mutating request
// takes one seat while it runs and, when its type has at least 10 watchers, one seat per 10 watchers for 5 ms
// after it (kube's mutating_work_estimator: the work of notifying them), from the store's watcher count as last
// heard.

export const MIN_SEATS = 1;
export const MAX_SEATS = 10; // kube's MaximumSeatsLimit
const OBJECTS_PER_SEAT = 100;

export interface WidthRequest {
  verb: string;
  name: string;
  query: URLSearchParams;
}

const WATCHES_PER_SEAT = 10;
/** kube's eventAdditionalDuration. */
export const FINAL_SEATS_MS = 5;
const MUTATING = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/**
 * A level's widest request: 15% of its nominal concurrency limit and at most nominal / handSize (queuing levels),
 * between 1 and MAX_SEATS, so a few wide lists cannot hold a small level's every seat (kube ≥ 1.28's max seats per
 * priority level, apf_controller finishQueueSetReconfigsLocked).
 */
export function maxSeatsFor(nominalLimit: number, handSize = 0): number {
  let max = Math.ceil(nominalLimit * 0.15);
  if (handSize > 0) max = Math.min(max, Math.floor(nominalLimit / handSize));
  return Math.max(MIN_SEATS, Math.min(MAX_SEATS, max));
}

/** kube's mutating work estimate: the final seats of a write to a type with `watchers` watchers, or undefined. */
export function finalSeats(verb: string, watchers: number | undefined): { seats: number; ms: number } | undefined {
  if (!MUTATING.has(verb) || watchers === undefined || !(watchers >= WATCHES_PER_SEAT)) return undefined;
  return { seats: Math.min(MAX_SEATS, Math.ceil(watchers / WATCHES_PER_SEAT)), ms: FINAL_SEATS_MS };
}

export function estimateSeats(req: WidthRequest, storedCount: number | undefined, maxSeats: number): number {
  const max = Math.max(MIN_SEATS, Math.min(maxSeats, MAX_SEATS));
  if (req.verb !== 'list' && req.verb !== 'watch') return MIN_SEATS;
  if (req.name) return MIN_SEATS; // a list by metadata.name is a get
  const q = req.query;
  if (req.verb === 'watch' && q.get('sendInitialEvents') !== 'true') return MIN_SEATS;
  if (storedCount === undefined) return MIN_SEATS;
  const limitText = q.get('limit');
  const limitValue = limitText && /^[0-9]{1,12}$/.test(limitText) ? Number(limitText) : 0;
  const limit = limitValue > 0 && limitValue < storedCount ? limitValue : storedCount;
  const fromCache = req.verb === 'watch' || !listsFromStorage(q);
  let objects: number;
  if (fromCache) objects = storedCount;
  else if (q.get('fieldSelector') || q.get('labelSelector')) objects = storedCount + limit;
  else objects = 2 * limit;
  return Math.max(MIN_SEATS, Math.min(max, Math.ceil(objects / OBJECTS_PER_SEAT)));
}

/** kube's shouldListFromStorage, with ConsistentListFromCache on (1.31+ default). */
function listsFromStorage(q: URLSearchParams): boolean {
  const match = q.get('resourceVersionMatch') ?? '';
  const rv = q.get('resourceVersion') ?? '';
  const limit = Number(q.get('limit') ?? '0');
  if (match === 'Exact') return true;
  if (match === '' && limit > 0 && rv !== '' && rv !== '0') return true;
  if (match !== '' && match !== 'NotOlderThan') return true;
  if (q.get('continue')) return true;
  return false;
}
