// Front door: what admission read lately, per isolate (kube's plugins read informer caches; here each read is a
// store round trip, which a controller's burst of pod creates would multiply). Entries live ADMISSION_CACHE_TTL_MS,
// about an informer's lag, and the whole cache is bounded in bytes (oldest entries go first). Only reads whose
// staleness admits nothing kube would refuse are kept: LimitRanges, PriorityClasses, namespaces, ServiceAccounts
// that exist, and a namespace's ResourceQuotas when it has none (a quota newer than the entry limits nothing for
// that long, as a quota the controller has not counted yet limits nothing in kube); a namespace's quotas
// themselves are read fresh, and a charge is guarded by their resourceVersion anyway. A write through this isolate
// to any of those types empties the cache (afterWrite), so its own client reads its writes.

import type { KubeObject } from '../core/object-meta';

export const ADMISSION_CACHE_TTL_MS = 1000;
export const ADMISSION_CACHE_BYTES = 8 * 1024 * 1024;

interface Entry {
  at: number;
  bytes: number;
  value: KubeObject | KubeObject[];
}

export class AdmissionCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly ttlMs = ADMISSION_CACHE_TTL_MS, private readonly maxBytes = ADMISSION_CACHE_BYTES, private readonly now = () => Date.now()) {}

  get<T extends KubeObject | KubeObject[]>(key: string): T | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (this.now() - e.at >= this.ttlMs) {
      this.drop(key, e);
      return undefined;
    }
    return structuredClone(e.value) as T;
  }

  /** Keeps `value` (whose JSON was `bytes` long); an entry larger than a quarter of the cache is not kept. */
  set(key: string, value: KubeObject | KubeObject[], bytes: number): void {
    if (bytes > this.maxBytes / 4) return;
    const old = this.entries.get(key);
    if (old) this.drop(key, old);
    this.entries.set(key, { at: this.now(), bytes, value: structuredClone(value) });
    this.bytes += bytes;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.drop(k, e);
    }
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  private drop(key: string, e: Entry): void {
    this.entries.delete(key);
    this.bytes -= e.bytes;
  }
}

/** The isolate's cache. */
export const admissionCache = new AdmissionCache();

// The types whose objects admission reads: a write to one through this isolate empties the cache, so a client that
// writes a PriorityClass, LimitRange or quota and then a pod (kubectl apply -f of both) is admitted by what it wrote.
const READ_BY_ADMISSION = new Set([
  'core/namespaces', 'core/serviceaccounts', 'core/limitranges', 'core/resourcequotas', 'scheduling.k8s.io/priorityclasses',
  'admissionregistration.k8s.io/validatingadmissionpolicies', 'admissionregistration.k8s.io/validatingadmissionpolicybindings',
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
