// Canonical auth: credentials for the gateway's own components (the controller manager and its
// controllers, the simulated nodes), which call the front door in-process like any client.
//
// kube-controller-manager authenticates with a client certificate (CN=system:kube-controller-manager)
// and, with --use-service-account-credentials (kubeadm's default), each controller with the token of its
// own ServiceAccount in kube-system, bound to its system:controller:<name> ClusterRole. Here a component's
// token is `edgeplane-internal.v1.<base64url(username)>.<base64url(mac)>`, where mac =
// HMAC-SHA256(signing key, label + username). Only holders of the ServiceAccount signing key (the Worker
// and its Durable Objects) can compute one; outside clients cannot forge it, and the tokens never leave
// the process (they are sent to app.fetch in memory). Only the usernames below authenticate, and the
// server, not the token, decides their groups.

import { base64url } from 'jose';
import { hmacKey } from './hmac-key';

export const INTERNAL_TOKEN_PREFIX = 'edgeplane-internal.v1.';
const LABEL = 'edgeplane internal identity v1:';

export const CONTROLLER_MANAGER_USER = 'system:kube-controller-manager';
export const SCHEDULER_USER = 'system:kube-scheduler'; // kube-scheduler's client certificate CN
// kube-apiserver's loopback identity (system:masters), which its own loops use: here the aggregator's availability loop.
export const APISERVER_USER = 'system:apiserver';
const SA_PREFIX = 'system:serviceaccount:kube-system:';
const NODE_PREFIX = 'system:node:';

/** The controllers that run with their own ServiceAccount identity (kube's names). */
export const CONTROLLER_ACCOUNTS = [
  'deployment-controller', 'replicaset-controller', 'generic-garbage-collector', 'service-account-controller',
  'job-controller', 'ttl-after-finished-controller', 'statefulset-controller', 'daemon-set-controller', 'replication-controller',
  'endpointslice-controller', 'endpoint-controller', 'namespace-controller',
  'node-controller', 'clusterrole-aggregation-controller', 'root-ca-cert-publisher',
  'cronjob-controller', 'persistent-volume-binder', 'pvc-protection-controller', 'pv-protection-controller', 'disruption-controller',
  'service-controller', 'resourcequota-controller', 'horizontal-pod-autoscaler', 'certificate-controller',
] as const;

/** kube-proxy's user (bound to the system:node-proxier ClusterRole by kube's bootstrap policy). */
export const KUBE_PROXY_USER = 'system:kube-proxy';
export type ControllerAccount = (typeof CONTROLLER_ACCOUNTS)[number];

export interface InternalUser {
  username: string;
  uid: string;
  groups: string[];
}

export const controllerUsername = (account: ControllerAccount): string => `${SA_PREFIX}${account}`;
export const nodeUsername = (node: string): string => `${NODE_PREFIX}${node}`;

/** The user an internal username stands for, or undefined when it is not one of ours. */
export function internalUser(username: string): InternalUser | undefined {
  if (username === KUBE_PROXY_USER) return { username, uid: '', groups: ['system:authenticated'] };
  if (username === SCHEDULER_USER) return { username, uid: '', groups: ['system:authenticated'] };
  if (username === CONTROLLER_MANAGER_USER) return { username, uid: '', groups: ['system:authenticated'] };
  if (username === APISERVER_USER) return { username, uid: '', groups: ['system:masters', 'system:authenticated'] };
  if (username.startsWith(SA_PREFIX) && (CONTROLLER_ACCOUNTS as readonly string[]).includes(username.slice(SA_PREFIX.length))) {
    return { username, uid: '', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'] };
  }
  // Simulated nodes: kube's node identity (system:node:<name> in system:nodes).
  if (username.startsWith(NODE_PREFIX) && /^[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?$/.test(username.slice(NODE_PREFIX.length))) {
    return { username, uid: '', groups: ['system:nodes', 'system:authenticated'] };
  }
  return undefined;
}

const enc = new TextEncoder();

async function mac(key: Uint8Array, username: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.sign('HMAC', await hmacKey(key), enc.encode(LABEL + username)));
}

/** The token a component presents as `username`. */
export async function internalToken(key: Uint8Array, username: string): Promise<string> {
  if (!internalUser(username)) throw new Error(`not an internal identity: ${username}`);
  return `${INTERNAL_TOKEN_PREFIX}${base64url.encode(username)}.${base64url.encode(await mac(key, username))}`;
}

/** The user of a valid internal token; undefined for anything else (including a wrong MAC). */
export async function verifyInternalToken(key: Uint8Array, token: string): Promise<InternalUser | undefined> {
  if (!token.startsWith(INTERNAL_TOKEN_PREFIX) || token.length > 512) return undefined;
  const [encodedUser, encodedMac, extra] = token.slice(INTERNAL_TOKEN_PREFIX.length).split('.');
  if (!encodedUser || !encodedMac || extra !== undefined) return undefined;
  let username: string;
  let given: Uint8Array;
  try {
    username = new TextDecoder('utf-8', { fatal: true }).decode(base64url.decode(encodedUser));
    given = base64url.decode(encodedMac);
  } catch {
    return undefined;
  }
  const user = internalUser(username);
  if (!user) return undefined;
  const expected = await mac(key, username);
  if (given.length !== expected.length) return undefined;
  let diff = 0;
  for (let i = 0; i < expected.length; i++) diff |= expected[i] ^ given[i];
  return diff === 0 ? user : undefined;
}
