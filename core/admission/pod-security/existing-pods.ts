// Core: the warnings a namespace update that tightens PodSecurity `enforce` answers, as kube 1.32's
// EvaluatePodsInNamespace and decoratePodWarnings (k8s.io/pod-security-admission/admission): each existing pod is
// evaluated at the new level (pods of an exempt runtimeClassName are skipped); pods failing for the same reasons
// share one warning, `<first pod by name>[ (and N other pod[s])]: <reasons>`, sorted; before them
// `existing pods in namespace "<ns>" violate the new PodSecurity enforce level "<level>:<version>"`, and first of
// all, when not every pod was evaluated (kube's 3000-pod and 1 s limits), `new PodSecurity enforce level only
// checked against the first <checked> of <total> existing pods`. Linear in the pods evaluated; the caller feeds them
// a page at a time and keeps no pod, only one entry per distinct set of reasons.

import { evaluatePod, type Level } from './checks';
import { readCapped } from '../../bounded-read';
import type { AdmissionFollowUp } from '../attributes';
import { goQuote } from '../../validation/names';
import { showLevelVersion, type LevelVersion } from './policy';

type Obj = Record<string, any>;

/** defaultNamespaceMaxPodsToCheck and defaultNamespacePodCheckTimeout. */
export const NAMESPACE_MAX_PODS_TO_CHECK = 3000;
export const NAMESPACE_POD_CHECK_TIMEOUT_MS = 1000;
export const LIST_FAILED_WARNING = 'failed to list pods while checking new PodSecurity enforce level';
// Pages of the pod list: at most PAGE_BYTES in memory at once (a page over it is read again at half the size).
const PAGE = 250;
const PAGE_BYTES = 4 * 1024 * 1024;

export class ExistingPodsCheck {
  private readonly byReason = new Map<string, { first: string; count: number }>();
  /** Pods evaluated (not exempt). */
  checked = 0;

  constructor(private readonly namespace: string, private readonly enforce: LevelVersion, private readonly exemptRuntimeClasses: readonly string[] = []) {}

  /** Evaluates one pod unless its runtimeClassName is exempt; returns whether it was evaluated. */
  add(pod: Obj): boolean {
    const spec = pod?.spec && typeof pod.spec === 'object' ? pod.spec : {};
    const rc = spec.runtimeClassName;
    if (typeof rc === 'string' && rc !== '' && this.exemptRuntimeClasses.includes(rc)) return false;
    this.checked++;
    const failed = evaluatePod(this.enforce.level as Level, pod?.metadata ?? {}, spec);
    if (!failed.length) return true;
    // AggregateCheckResult.ForbiddenReason: the reasons alone, comma-separated.
    const reason = failed.map((r) => r.reason).join(', ');
    const name = String(pod?.metadata?.name ?? '');
    const seen = this.byReason.get(reason);
    if (!seen) this.byReason.set(reason, { first: name, count: 1 });
    else {
      seen.count++;
      if (name < seen.first) seen.first = name;
    }
    return true;
  }

  /** The warnings, given how many pods there were to check (evaluated or not, exempt ones left out). */
  warnings(total: number): string[] {
    const out: string[] = [];
    if (this.checked < total) out.push(`new PodSecurity enforce level only checked against the first ${this.checked} of ${total} existing pods`);
    if (this.byReason.size) {
      out.push(`existing pods in namespace ${goQuote(this.namespace)} violate the new PodSecurity enforce level ${goQuote(showLevelVersion(this.enforce))}`);
    }
    const decorated: string[] = [];
    for (const [reason, { first, count }] of this.byReason) {
      const others = count === 1 ? '' : count === 2 ? ' (and 1 other pod)' : ` (and ${count - 1} other pods)`;
      decorated.push(`${first}${others}: ${reason}`);
    }
    decorated.sort(byBytes);
    return [...out, ...decorated];
  }
}

// Go's sort.Strings compares bytes; pod names and reasons are ASCII, where UTF-16 order is the same.
const byBytes = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export interface PodPageSource {
  /** One list page of the namespace's pods: the response as the store answers a list. */
  list(namespace: string, limit: number, continueToken: string): Promise<Response>;
  now(): number;
}

/**
 * The warnings for the namespace's pods at `check`'s level, reading pages from `source` within kube's limits: at most
 * 3000 pods, and no new page after 1 s; no pod is kept after its page, so a namespace of 100,000 pods costs what
 * 3000 do. kube lists every pod from its informer and checks the first 3000 after putting one pod per controller
 * first; edgeplane checks the first 3000 by name and counts the rest (the list's remainingItemCount).
 */
export async function evaluateNamespacePods(source: PodPageSource, check: NonNullable<AdmissionFollowUp['podSecurityPods']>, exemptRuntimeClasses: readonly string[]): Promise<string[]> {
  const started = source.now();
  const pods = new ExistingPodsCheck(check.namespace, { level: check.level, version: check.version }, exemptRuntimeClasses);
  let read = 0; // pods read (evaluated or exempt)
  let exempt = 0;
  let unread = 0; // pods the store still had after the last page read
  let cont = '';
  let limit = PAGE;
  let pages = 0;
  for (;;) {
    const want = Math.min(limit, NAMESPACE_MAX_PODS_TO_CHECK - read);
    let text: string | undefined;
    try {
      const res = await source.list(check.namespace, want, cont);
      if (res.status !== 200) await res.body?.cancel().catch(() => undefined);
      else {
        text = await readCapped(res, PAGE_BYTES);
        if (text === undefined && want > 1 && source.now() - started < NAMESPACE_POD_CHECK_TIMEOUT_MS) {
          limit = Math.floor(want / 2); // large pods: the same page again, smaller
          continue;
        }
      }
    } catch {
      text = undefined; // a failed read is reported as kube reports a failed list
    }
    if (text === undefined) {
      if (pages === 0) return [LIST_FAILED_WARNING];
      break; // what was read is reported, the rest counted as unchecked
    }
    pages++;
    const list = JSON.parse(text) as { items?: Obj[]; metadata?: { continue?: string; remainingItemCount?: number } };
    for (const pod of list.items ?? []) {
      if (!pods.add(pod)) exempt++;
      read++;
    }
    cont = list.metadata?.continue ?? '';
    unread = cont ? Math.max(0, list.metadata?.remainingItemCount ?? 0) : 0;
    if (!cont || read >= NAMESPACE_MAX_PODS_TO_CHECK || source.now() - started >= NAMESPACE_POD_CHECK_TIMEOUT_MS) break;
  }
  return pods.warnings(read - exempt + unread);
}
