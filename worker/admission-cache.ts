// Front door: what admission read lately, per isolate (kube's plugins read informer caches; here each read is a
// store round trip, which a controller's burst of pod creates would multiply). Entries live ADMISSION_CACHE_TTL_MS,
// about an informer's lag, and the whole cache is bounded in bytes (oldest entries go first). Only reads whose
// staleness admits nothing kube would refuse are kept: LimitRanges, PriorityClasses, namespaces, ServiceAccounts
// that exist, and a namespace's ResourceQuotas when it has none (a quota newer than the entry limits nothing for
// that long, as a quota the controller has not counted yet limits nothing in kube); a namespace's quotas
// themselves are read fresh, and a charge is guarded by their resourceVersion anyway. A write through this isolate
// to any of those types empties the cache (afterWrite), so its own client reads its writes. Entries are kept as
// JSON text and parsed on each read: every read hands out a fresh copy, and JSON.parse of a small object costs a
// fraction of structuredClone (bench/profile.ts writes-64: structuredClone here was ~3% of a create's CPU).

import type { KubeObject } from '../core/object-meta';

export const ADMISSION_CACHE_TTL_MS = 1000;
export const ADMISSION_CACHE_BYTES = 8 * 1024 * 1024;

interface Entry {
  at: number;
  text: string;
}

export class AdmissionCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  // Reads under way, by key: as many as requests in flight at most.
  private readonly loading = new Map<string, Promise<unknown>>();

  constructor(private readonly ttlMs = ADMISSION_CACHE_TTL_MS, private readonly maxBytes = ADMISSION_CACHE_BYTES, private readonly now = () => Date.now()) {}

  get<T extends KubeObject | KubeObject[]>(key: string): T | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (this.now() - e.at >= this.ttlMs) {
      this.drop(key, e);
      return undefined;
    }
    return JSON.parse(e.text) as T;
  }

  /**
   * Keeps `value`, as `text` (its JSON, when the caller has it at hand); an entry larger than a quarter of the
   * cache is not kept.
   */
  set(key: string, value: KubeObject | KubeObject[], text: string = JSON.stringify(value)): void {
    if (text.length > this.maxBytes / 4) return;
    const old = this.entries.get(key);
    if (old) this.drop(key, old);
    this.entries.set(key, { at: this.now(), text });
    this.bytes += text.length;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.drop(k, e);
    }
  }

  /**
   * `read` once for every concurrent caller of `key`: when an entry expires with 64 creates in flight, each of them
   * would otherwise read the same object from its store (bench/profile.ts writes-64). Callers share what `read`
   * answers, so it must be immutable (a Result, a string). After clear() or delete(key), callers read anew.
   */
  shared<R>(key: string, read: () => Promise<R>): Promise<R> {
    const current = this.loading.get(key);
    if (current) return current as Promise<R>;
    const p = read();
    this.loading.set(key, p);
    const done = () => {
      if (this.loading.get(key) === p) this.loading.delete(key);
    };
    p.then(done, done);
    return p;
  }

  clear(): void {
    this.entries.clear();
    this.loading.clear();
    this.bytes = 0;
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  /** Forgets one entry (a read that must be fresh). */
  delete(key: string): void {
    this.loading.delete(key);
    const e = this.entries.get(key);
    if (e) this.drop(key, e);
  }

  private drop(key: string, e: Entry): void {
    this.entries.delete(key);
    this.bytes -= e.text.length;
  }
}

/** The isolate's cache. */
export const admissionCache = new AdmissionCache();

// The types whose objects admission reads: a write to one through this isolate empties the cache, so a client that
// writes a PriorityClass, LimitRange or quota and then a pod (kubectl apply -f of both) is admitted by what it wrote.
const READ_BY_ADMISSION = new Set([
  'core/namespaces', 'core/serviceaccounts', 'core/limitranges', 'core/resourcequotas', 'scheduling.k8s.io/priorityclasses',
  'admissionregistration.k8s.io/validatingadmissionpolicies', 'admissionregistration.k8s.io/validatingadmissionpolicybindings',
  'admissionregistration.k8s.io/mutatingadmissionpolicies', 'admissionregistration.k8s.io/mutatingadmissionpolicybindings',
]);
// Bumped whenever the cache is emptied, so readers that keep their own snapshot (worker/admission-policy-source.ts)
// re-read too.
let generation = 0;

export function afterWrite(groupResource: string): void {
  if (READ_BY_ADMISSION.has(groupResource)) {
    admissionCache.clear();
    generation++;
  }
}

export function admissionCacheGeneration(): number {
  return generation;
}
