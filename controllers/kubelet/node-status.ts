// Simulated kubelets: the Node a kubelet registers (kubelet_node_status.go initialNode), the status it
// posts (capacity, the five kwok conditions, addresses, nodeInfo), and its Lease in kube-node-lease.

import type { KubeObject } from '../../client/types';
import { microTime } from '../leader-election';

export const KUBELET_VERSION = 'v1.32.0-edgeplane';
export const NODE_LEASE_NAMESPACE = 'kube-node-lease';
export const NODE_LEASE_DURATION_SECONDS = 40; // kubelet nodeLeaseDurationSeconds
export const NODE_LEASE_RENEW_MS = 10_000; // 40 s × nodeLeaseRenewIntervalFraction 0.25
/** A Node with this annotation is "stopped": its kubelet neither renews the Lease nor touches its pods. */
export const SIMULATE_ANNOTATION = 'edgeplane.dev/simulate';

export const nodeName = (i: number): string => `node-${i}`;

export const podCIDR = (i: number): string => `10.244.${i}.0/24`;
export const nodeIP = (i: number): string => `10.0.${i}.1`;

export function nodeObject(i: number): KubeObject {
  const name = nodeName(i);
  return {
    apiVersion: 'v1', kind: 'Node',
    metadata: {
      name,
      labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64', 'beta.kubernetes.io/os': 'linux', 'beta.kubernetes.io/arch': 'amd64' },
      annotations: { 'volumes.kubernetes.io/controller-managed-attach-detach': 'true', 'edgeplane.dev/simulated': 'kubelet' },
    },
    spec: { podCIDR: podCIDR(i), podCIDRs: [podCIDR(i)] },
  };
}

export function nodeStatus(i: number, now: string): Record<string, unknown> {
  const cond = (type: string, status: string, reason: string, message: string) => ({ type, status, lastHeartbeatTime: now, lastTransitionTime: now, reason, message });
  const resources = { cpu: '4', memory: '8Gi', pods: '110', 'ephemeral-storage': '100Gi' };
  return {
    capacity: resources, allocatable: resources,
    conditions: [
      cond('NetworkUnavailable', 'False', 'RouteCreated', 'RouteController created a route'),
      cond('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
      cond('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
      cond('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
      cond('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
    ],
    addresses: [{ type: 'InternalIP', address: nodeIP(i) }, { type: 'Hostname', address: nodeName(i) }],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: '', systemUUID: '', bootID: '', kernelVersion: '6.1.0', osImage: 'edgeplane simulated node', containerRuntimeVersion: 'simulated://1.0',
      kubeletVersion: KUBELET_VERSION, kubeProxyVersion: KUBELET_VERSION, operatingSystem: 'linux', architecture: 'amd64',
    },
  };
}

export function leaseObject(node: KubeObject, now: number): KubeObject {
  return {
    apiVersion: 'coordination.k8s.io/v1', kind: 'Lease',
    metadata: {
      name: node.metadata.name, namespace: NODE_LEASE_NAMESPACE,
      ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: node.metadata.name!, uid: node.metadata.uid! }],
    },
    spec: { holderIdentity: node.metadata.name, leaseDurationSeconds: NODE_LEASE_DURATION_SECONDS, renewTime: microTime(now) },
  };
}

export const isStopped = (node: KubeObject | undefined): boolean =>
  (node?.metadata.annotations as Record<string, string> | undefined)?.[SIMULATE_ANNOTATION] === 'stopped';

export function readyStatus(node: KubeObject | undefined): string | undefined {
  return ((node?.status as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? []).find((c) => c.type === 'Ready')?.status;
}
