// Front door: Priority admission for pod creates (core/scheduling/priority.ts), with the PriorityClasses read from
// their store. A body that does not parse is left to the store, which answers it as kube does.

import { admitPodPriority, type PriorityClassView } from '../../core/scheduling/priority';
import { groupResource, RESOURCE_TYPES, type ResourceType } from '../../core/registry';
import type { Bindings } from '../env';
import { storeFor } from '../stores';

const PRIORITY_CLASSES = RESOURCE_TYPES.find((t) => t.group === 'scheduling.k8s.io' && t.kind === 'PriorityClass' && t.stored) as ResourceType | undefined;

export const isCorePod = (type: ResourceType): boolean => type.group === '' && type.kind === 'Pod';

export async function admitPriority(env: Bindings, body: string): Promise<string> {
  if (!PRIORITY_CLASSES) return body;
  let pod: Record<string, unknown>;
  try {
    pod = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return body;
  }
  if (!pod || typeof pod !== 'object' || Array.isArray(pod) || (pod.spec !== undefined && (typeof pod.spec !== 'object' || pod.spec === null || Array.isArray(pod.spec)))) return body;
  const res = await storeFor(env, PRIORITY_CLASSES).list(groupResource(PRIORITY_CLASSES), { namespace: '', query: '', format: { as: 'List' } });
  if (!res.ok) throw new Error(`listing priorityclasses: HTTP ${res.status}`);
  const classes = ((await res.json()) as { items?: PriorityClassView[] }).items ?? [];
  admitPodPriority(pod as Parameters<typeof admitPodPriority>[0], classes);
  return JSON.stringify(pod);
}
