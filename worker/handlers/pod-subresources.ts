// Front door: the pod subresources that reach a kubelet in kube — pods/log (LogREST), pods/exec, pods/attach,
// pods/portforward (ExecREST, AttachREST, PortForwardREST) — and the proxy subresources of pods, services and
// nodes (ProxyREST). kube-apiserver checks the pod and container first (pkg/registry/core/pod/strategy.go) and
// then talks to the node's kubelet. The simulated kubelets keep no containers: logs are synthetic
// (core/pods/synthetic-log.ts); exec, attach, port-forward and proxies answer the error kube answers when the
// kubelet or the pod cannot be reached, worded so a user knows why.

import type { Context } from 'hono';
import type { ResourceRequest } from '../../core/request-info';
import { lookupGroupResource, type ResourceType } from '../../core/registry';
import { badRequest, notFound, serviceUnavailable, StatusError, statusResponse, tooManyRequests, unknownError } from '../../core/status';
import {
  containerActive, containerLog, logContainer, parsePodLogOptions, renderLog, truncateBytes, type LogLine, type PodLogOptions,
} from '../../core/pods/synthetic-log';
import type { AppEnv } from '../env';
import { readObject } from '../stores';

type Ctx = Context<AppEnv>;
type View = any;

const PODS = lookupGroupResource('core/pods')!;

// A followed log re-reads its pod this often, for at most this long (kube's own follow has no end; a bound keeps a
// forgotten `kubectl logs -f` from holding the isolate), and an isolate follows at most this many logs at once.
const FOLLOW_POLL_MS = 2_000;
export const FOLLOW_MAX_MS = 10 * 60_000;
const MAX_FOLLOWERS = 200;
let followers = 0;

async function pod(c: Ctx, namespace: string, name: string): Promise<View> {
  const got = await readObject<View>(c.env, PODS, namespace, name);
  if (!got.ok) throw new StatusError(got.status.code === 404 ? notFound(PODS, name) : got.status);
  return got.value;
}

const TEXT = { 'content-type': 'text/plain' };

/** GET pods/<name>/log: options validated, then the pod and container, then the simulated kubelet's log. */
export async function podLog(c: Ctx, info: ResourceRequest, url: URL): Promise<Response> {
  const opts = parsePodLogOptions(url.searchParams, info.name);
  const p = await pod(c, info.namespace, info.name);
  const container = logContainer(p, opts.container, info.name);
  // A pod not yet on a node has no log location: kube streams nothing (LogLocation returns nil).
  if (!p?.spec?.nodeName) return new Response('', { headers: TEXT });
  const lines = containerLog(p, container, opts.previous);
  if ('error' in lines) throw new StatusError(badRequest(lines.error));
  const now = Date.now();
  const first = renderLog(lines, opts, now);
  if (!opts.follow || opts.previous || !containerActive(p, container) || (opts.limitBytes !== undefined && byteLength(first) >= opts.limitBytes)) {
    return new Response(first, { headers: TEXT });
  }
  if (followers >= MAX_FOLLOWERS) throw new StatusError(tooManyRequests('too many pod logs are being followed; try again later', 1));
  // Local dev gzips text for clients that accept it, which holds the followed lines back until the end.
  return new Response(followStream(c, info, container, opts, lines, first), { headers: { ...TEXT, 'content-encoding': 'identity' } });
}

const byteLength = (s: string) => new TextEncoder().encode(s).byteLength;

/**
 * The log, then every line the pod's status adds while its container runs, until it stops, the pod goes, the
 * client leaves, limitBytes is reached or FOLLOW_MAX_MS passes. One pod read per poll, whatever the log's size.
 */
function followStream(c: Ctx, info: ResourceRequest, container: string, opts: PodLogOptions, initial: LogLine[], first: string): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const seen = new Set(initial.map(key));
  let sent = byteLength(first);
  let started = false;
  let cancelled = false;
  const deadline = Date.now() + FOLLOW_MAX_MS;
  followers++;
  let released = false;
  const release = () => {
    if (!released) followers--;
    released = true;
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        if (!started) {
          started = true;
          if (first) return controller.enqueue(encoder.encode(first));
        }
        for (;;) {
          if (cancelled || Date.now() >= deadline) return close(controller);
          await new Promise((resolve) => setTimeout(resolve, FOLLOW_POLL_MS));
          if (cancelled) return close(controller);
          const got = await readObject<View>(c.env, PODS, info.namespace, info.name);
          if (!got.ok) return close(controller);
          const lines = containerLog(got.value, container, false);
          const fresh = 'error' in lines ? [] : lines.filter((l) => !seen.has(key(l)));
          for (const l of fresh) if (seen.size < 10_000) seen.add(key(l));
          let text = renderLog(fresh, { ...opts, tailLines: undefined, sinceSeconds: undefined, sinceTime: undefined, limitBytes: undefined }, Date.now());
          if (opts.limitBytes !== undefined) text = truncateBytes(text, opts.limitBytes - sent);
          sent += byteLength(text);
          const done = !containerActive(got.value, container) || (opts.limitBytes !== undefined && sent >= opts.limitBytes);
          if (text) controller.enqueue(encoder.encode(text));
          if (done) return close(controller);
          if (text) return;
        }
      } catch {
        close(controller);
      }
    },
    cancel() {
      cancelled = true;
      release();
    },
  });
  function close(controller: ReadableStreamDefaultController<Uint8Array>): void {
    release();
    controller.close();
  }
}

const key = (l: LogLine) => `${l.time}\u0000${l.text}`;

/** httpstream.IsUpgradeRequest: a Connection header naming `upgrade`. */
function isUpgrade(req: Request): boolean {
  return (req.headers.get('connection') ?? '').toLowerCase().split(',').some((t) => t.trim() === 'upgrade');
}

const WHAT: Record<string, string> = { exec: 'exec', attach: 'attach', portforward: 'port-forward' };

/**
 * pods/exec, pods/attach, pods/portforward (GET or POST, as SPDY or WebSocket upgrades): kube finds the pod, the
 * container and the node, answers a request that is not an upgrade 400 `Upgrade request required`, and dials the
 * kubelet. There is no kubelet to dial: the answer is the 500 of a failed dial (a Status of unknown reason, which
 * kubectl prints as `Error from server: error dialing backend: …`).
 */
export async function podConnect(c: Ctx, info: ResourceRequest, url: URL): Promise<Response> {
  const p = await pod(c, info.namespace, info.name);
  if (info.subresource !== 'portforward') logContainer(p, url.searchParams.get('container') ?? '', info.name);
  const node = p?.spec?.nodeName;
  if (!node) throw new StatusError(badRequest(`pod ${info.name} does not have a host assigned`));
  if (!isUpgrade(c.req.raw)) throw new StatusError(badRequest('Upgrade request required'));
  const what = WHAT[info.subresource] ?? info.subresource;
  return statusResponse(unknownError(500, `error dialing backend: node ${JSON.stringify(node)} is simulated by edgeplane and has no container runtime: ${what} is not available`));
}

/** Service proxy names: `name`, `name:port` or `scheme:name:port` (utilnet.SplitSchemeNamePort). */
function proxiedName(id: string): string {
  const parts = id.split(':');
  return parts.length === 3 ? parts[1]! : parts[0]!;
}

/**
 * pods/proxy, services/proxy, nodes/proxy: the object must exist (a pod must have an IP); then kube's proxy dials
 * it and answers 503 `error trying to reach service: …` when it cannot. edgeplane's simulated network carries no
 * traffic.
 */
export async function proxy(c: Ctx, type: ResourceType, info: ResourceRequest): Promise<Response> {
  const name = proxiedName(info.name);
  const got = await readObject<View>(c.env, type, info.namespace, name);
  if (!got.ok) throw new StatusError(got.status.code === 404 ? notFound(type, name) : got.status);
  let target: string;
  if (type.kind === 'Pod') {
    const ip = got.value?.status?.podIP;
    if (!ip) throw new StatusError(badRequest('address not allowed'));
    target = `pod IP ${ip}`;
  } else if (type.kind === 'Node') {
    target = `the kubelet of node ${JSON.stringify(name)}`;
  } else {
    target = `service ${JSON.stringify(name)}`;
  }
  return statusResponse(serviceUnavailable(`error trying to reach service: ${target} is in edgeplane's simulated network, which carries no traffic`));
}

export const CONNECT_SUBRESOURCES = new Set(['exec', 'attach', 'portforward']);
