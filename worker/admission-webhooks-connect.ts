// Front door: admission of CONNECT requests (pods/exec, pods/attach, pods/portforward and the proxy subresources
// of pods, services and nodes), as kube-apiserver's ConnectResource (apiserver/pkg/endpoints/handlers/rest.go)
// admits them before the connection is made: the mutating, then the validating admission webhooks and policies
// (worker/admission-webhooks.ts admitWithoutWrite) with operation CONNECT, the request's options object as the
// object (PodExecOptions, PodAttachOptions, PodPortForwardOptions, <Kind>ProxyOptions, as the query decodes into
// them), no old object and no options. A refusal answers the request with the webhook's or policy's Status.

import type { ResourceRequest } from '../core/request-info';
import { subresourceInfo, type ResourceType, type Subresource } from '../core/registry';
import type { KubeObject } from '../core/object-meta';
import { addMutatingStage, addValidatingStage, admitWithoutWrite } from './admission-webhooks';
import { admissionPolicyStage } from './admission-policy';
import { mutatingPolicyStage } from './admission-policy-mutating';
import type { Ctx } from './handlers/call';

/** The subresources kube serves through a Connecter. */
export const CONNECT_ADMITTED = new Set(['exec', 'attach', 'portforward', 'proxy']);

// runtime.Convert_Slice_string_To_bool: "0", "f", "false" (any case) are false, any other value true.
function bool(q: URLSearchParams, key: string): boolean | undefined {
  const v = q.getAll(key);
  if (!v.length) return undefined;
  const s = v[0]!.toLowerCase();
  return !(s === '0' || s === 'f' || s === 'false');
}

/**
 * The options object the query decodes into (core/v1 PodExecOptions & co., Go field order, omitempty fields left
 * out); a port that does not parse is left out too (the connection itself would refuse it).
 */
export function connectOptions(type: Pick<ResourceType, 'kind'>, subresource: string, query: URLSearchParams, subpath: string | undefined): KubeObject {
  const kind = subresourceInfo(type, subresource as Subresource).kind;
  const out: Record<string, unknown> = { kind, apiVersion: 'v1' };
  const set = (k: string, v: unknown) => {
    if (v !== undefined && v !== false && v !== '') out[k] = v;
  };
  if (subresource === 'exec' || subresource === 'attach') {
    for (const k of ['stdin', 'stdout', 'stderr', 'tty']) set(k, bool(query, k));
    set('container', query.get('container') ?? undefined);
    // PodExecOptions.command has no omitempty.
    if (subresource === 'exec') out.command = query.getAll('command');
  } else if (subresource === 'portforward') {
    const ports = query.getAll('ports').flatMap((p) => p.split(',')).map((p) => p.trim()).filter((p) => /^\d{1,5}$/.test(p)).map(Number);
    if (ports.length) out.ports = ports;
  } else {
    set('path', subpath ?? query.get('path') ?? undefined);
  }
  return out as unknown as KubeObject;
}

/** Admits one CONNECT request; throws the refusal (a StatusError) when a webhook or policy refuses it. */
export async function admitConnect(c: Ctx, type: ResourceType, info: ResourceRequest, url: URL): Promise<void> {
  if (!CONNECT_ADMITTED.has(info.subresource)) return;
  // The policy stages, as a write registers them (worker/handlers/write.ts), so a CONNECT first in its isolate sees them.
  addValidatingStage(admissionPolicyStage(c.env, c.get('settings')));
  addMutatingStage(mutatingPolicyStage(c.env, c.get('settings')));
  const object = connectOptions(type, info.subresource, url.searchParams, info.subpath);
  await admitWithoutWrite(c, { type, info, url }, { operation: 'CONNECT', subresource: info.subresource, name: info.name, object, oldObject: null, dryRun: false, options: null });
}
