// Core: the admission chain in kube-apiserver's order (apiserver/pkg/admission/chaining.go and the plugin order
// of kubernetes pkg/kubeapiserver/options/plugins.go AllOrderedPlugins): every mutating plugin's Admit in order,
// then — once the object is validated — every validating plugin's Validate in order. Pure: the objects a plugin
// consults (the pod's ServiceAccount, PriorityClasses, LimitRanges, ResourceQuotas, the namespace) are read by the
// front door before the write and handed over as AdmissionInputs; a plugin that needs an input it was not given
// refuses (fails closed).

import type { AdmissionAttributes, AdmissionEnv, AdmissionInputs, AdmissionPlugin } from './attributes';
import { serviceAccountPlugin } from './plugins/service-account';
import { priorityPlugin } from './plugins/priority';
import { limitRangerPlugin } from './plugins/limit-ranger';
import { resourceQuotaPlugin } from './plugins/resource-quota';
import { podSecurityPlugin } from './plugins/pod-security';
import { nodeRestrictionPlugin } from './plugins/node-restriction';
import { defaultStorageClassPlugin } from './plugins/default-storage-class';
import { pvcResizePlugin } from './plugins/pvc-resize';

export type { AdmissionAttributes, AdmissionEnv, AdmissionInputs, AdmissionPlugin } from './attributes';

// kube's order; NamespaceLifecycle runs in the front door (worker/handlers/namespace-lifecycle.ts) and
// DefaultTolerationSeconds in the store's create (core/pods/default-tolerations.ts), both where kube has them.
export const PLUGINS: readonly AdmissionPlugin[] = [
  limitRangerPlugin, serviceAccountPlugin, nodeRestrictionPlugin, podSecurityPlugin, priorityPlugin, defaultStorageClassPlugin,
  pvcResizePlugin, resourceQuotaPlugin,
];

export function admitMutating(a: AdmissionAttributes, inputs: AdmissionInputs, env: AdmissionEnv, plugins = PLUGINS): void {
  for (const p of plugins) if (p.admit && p.handles(a)) p.admit(a, inputs, env);
}

export function admitValidating(a: AdmissionAttributes, inputs: AdmissionInputs, env: AdmissionEnv, plugins = PLUGINS): void {
  for (const p of plugins) if (p.validate && p.handles(a)) p.validate(a, inputs, env);
}

