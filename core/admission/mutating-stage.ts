// Core: a mutating step of the front door's admission besides the mutating webhooks — MutatingAdmissionPolicy,
// which kube runs just before them (pkg/kubeapiserver/options/plugins.go AllOrderedPlugins) — on the object the
// store's dry run produced. The front door runs each registered stage in order, then the mutating webhooks on what
// they left. Register one with addMutatingStage (worker/admission-webhooks.ts).

import type { KubeObject } from '../object-meta';
import type { RequestAttributes } from './match/attributes';

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
  /** The object after this stage; throws the refusal (a StatusError). */
  mutate(a: RequestAttributes): Promise<MutatingResult>;
}
