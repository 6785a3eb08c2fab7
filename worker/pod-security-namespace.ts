// Front door: PodSecurity's check of a namespace's existing pods after an update that tightened its `enforce`
// label (the store's admission asked for it: core/admission/plugins/pod-security.ts validateNamespace), as kube
// 1.32's EvaluatePodsInNamespace: the pods are read from the pod store a page at a time and evaluated within kube's
// limits (core/admission/pod-security/existing-pods.ts evaluateNamespacePods), and the warnings are the update's.

import { groupResource, lookupGroupResource } from '../core/registry';
import { evaluateNamespacePods, type PodPageSource } from '../core/admission/pod-security/existing-pods';
import type { AdmissionFollowUp } from '../core/admission/attributes';
import type { Settings } from '../core/settings';
import type { Bindings } from './env';
import { storeFor } from './stores';

const PODS = lookupGroupResource('core/pods')!;

export function existingPodWarnings(env: Bindings, settings: Settings, check: NonNullable<AdmissionFollowUp['podSecurityPods']>): Promise<string[]> {
  const store = storeFor(env, PODS);
  const source: PodPageSource = {
    list: (namespace, limit, cont) => store.list(groupResource(PODS), {
      namespace, query: `?limit=${limit}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`, format: { as: 'List' },
    }),
    now: () => Date.now(),
  };
  return evaluateNamespacePods(source, check, settings.podSecurityExemptRuntimeClasses);
}

