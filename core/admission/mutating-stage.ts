// Core: a mutating step of the front door's admission besides the mutating webhooks — MutatingAdmissionPolicy,
// which kube runs just before them (pkg/kubeapiserver/options/plugins.go AllOrderedPlugins) — on the object the
// store's dry run produced. The front door runs each registered stage in order, then the mutating webhooks on what
// they left, and the whole once more when one of them asks for it (./reinvocation.ts). Register one with
// addMutatingStage (worker/admission-webhooks.ts).

import type { KubeObject } from '../object-meta';
import { applyDefaults } from './defaults';
import type { RequestAttributes } from './match/attributes';
import { ReinvocationContext } from './reinvocation';

export interface MutatingResult {
  object: KubeObject | null;
  changed: boolean;
  warnings?: string[];
  auditAnnotations?: Record<string, string>;
}

export interface MutatingStage {
  name: string;
  /** Cheap, before the dry run, as ValidatingStage.applies: false lets the write skip the admission round. */
  applies(a: RequestAttributes): boolean | Promise<boolean>;
  /**
   * The object after this stage's round (`ctx.isReinvoke`: the second); throws the refusal (a StatusError). A stage
   * that changed the object sets `ctx.shouldReinvoke`.
   */
  mutate(a: RequestAttributes, ctx: ReinvocationContext): Promise<MutatingResult>;
}

/** What two rounds of a mutator did, as one. */
export function bothRounds<T extends MutatingResult>(first: T, second: T): T {
  return {
    ...second,
    changed: first.changed || second.changed,
    warnings: [...(first.warnings ?? []), ...(second.warnings ?? [])],
    auditAnnotations: { ...first.auditAnnotations, ...second.auditAnnotations },
  };
}

/**
 * A mutated object with kube's defaults filled in, as kube decodes a webhook's patched object or a policy's merged
 * one into the typed object and defaults it (mutating/dispatcher.go callAttrMutatingHook, policy dispatchOne). A
 * shape the defaulting cannot walk is left as it is: the store's validation of the final object refuses it.
 */
export function defaulted(object: KubeObject): KubeObject {
  try {
    const copy = structuredClone(object);
    applyDefaults(copy);
    return copy;
  } catch {
    return object;
  }
}

/** What a run of the chain's reinvocable part left. */
export type MutatingRun = MutatingResult & { warnings: string[]; auditAnnotations: Record<string, string> };

/** The mutating webhooks' round (core/admission/webhook/dispatch.ts runMutating with the request's context). */
export type WebhookRound = (a: RequestAttributes, ctx: ReinvocationContext) => Promise<MutatingResult>;

/** One round of the chain's reinvocable part: the stages in order, then the webhooks, each on what the last left. */
async function mutateRound(stages: readonly MutatingStage[], webhooks: WebhookRound, attrs: RequestAttributes, ctx: ReinvocationContext): Promise<MutatingRun> {
  let object = attrs.object;
  let changed = false;
  const warnings: string[] = [];
  const auditAnnotations: Record<string, string> = {};
  for (const r of [...stages.map((s) => (o: KubeObject | null) => s.mutate({ ...attrs, object: o }, ctx)), (o: KubeObject | null) => webhooks({ ...attrs, object: o }, ctx)]) {
    const out = await r(object);
    if (out.changed) {
      object = out.object;
      changed = true;
    }
    warnings.push(...(out.warnings ?? []));
    Object.assign(auditAnnotations, out.auditAnnotations ?? {});
  }
  return { object, changed, warnings, auditAnnotations };
}

/**
 * The stages, then the mutating webhooks, on `attrs.object` (throws a refusal); and once more when one of them
 * asks for it (kube's reinvoker, ./reinvocation.ts), after `builtIn` ran the built-in mutating plugins again on
 * what the first round left, as kube's second call of its chain runs them.
 */
export async function mutateWithReinvocation(
  stages: readonly MutatingStage[],
  webhooks: WebhookRound,
  attrs: RequestAttributes,
  builtIn?: (object: KubeObject) => Promise<KubeObject>,
): Promise<MutatingRun> {
  const ctx = new ReinvocationContext();
  const first = await mutateRound(stages, webhooks, attrs, ctx);
  if (!ctx.shouldReinvoke || !ctx.anyReinvocable) return first;
  ctx.isReinvoke = true;
  let object = first.object;
  if (first.changed && object && builtIn) object = await builtIn(object);
  const second = await mutateRound(stages, webhooks, { ...attrs, object }, ctx);
  return bothRounds(first, second);
}
