// Controllers: client-go-style expectations (kubernetes pkg/controller/controller_utils.go,
// UIDTrackingControllerExpectations). After a controller creates or deletes pods its informer has not
// seen the results yet; until it has (or 5 minutes pass), the controller must not act on the stale view,
// or it would create or delete the same pods again.

import type { Clock } from './clock';

export const EXPECTATIONS_TIMEOUT_MS = 5 * 60 * 1000; // ExpectationsTimeout

interface Record {
  add: number;
  del: number;
  timestamp: number;
  deleteKeys: Set<string>; // pod keys expected to go (UID tracking)
}

export class Expectations {
  private readonly records = new Map<string, Record>();

  constructor(private readonly clock: Clock) {}

  /** True when the controller may sync: no record, all observed, or the record expired. */
  satisfied(controllerKey: string): boolean {
    const r = this.records.get(controllerKey);
    if (!r) return true;
    if (r.add <= 0 && r.del <= 0) return true;
    return this.clock.now() - r.timestamp > EXPECTATIONS_TIMEOUT_MS;
  }

  expectCreations(controllerKey: string, n: number): void {
    this.records.set(controllerKey, { add: n, del: 0, timestamp: this.clock.now(), deleteKeys: new Set() });
  }

  expectDeletions(controllerKey: string, podKeys: string[]): void {
    this.records.set(controllerKey, { add: 0, del: podKeys.length, timestamp: this.clock.now(), deleteKeys: new Set(podKeys) });
  }

  creationObserved(controllerKey: string): void {
    const r = this.records.get(controllerKey);
    if (r) r.add--;
  }

  /** A pod of this controller went (or got a deletionTimestamp); counted once per expected key. */
  deletionObserved(controllerKey: string, podKey: string): void {
    const r = this.records.get(controllerKey);
    if (r?.deleteKeys.delete(podKey)) r.del--;
  }

  /** A create that failed or was skipped: the informer will never see it. */
  lowerCreations(controllerKey: string, n = 1): void {
    const r = this.records.get(controllerKey);
    if (r) r.add -= n;
  }

  deleteExpectations(controllerKey: string): void {
    this.records.delete(controllerKey);
  }

  pending(controllerKey: string): { add: number; del: number } | undefined {
    const r = this.records.get(controllerKey);
    return r && { add: r.add, del: r.del };
  }
}
