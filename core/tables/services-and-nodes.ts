// Core: the services table (printService) and the nodes table (printNode).

import { AGE, col, formatLabels, NAME, wide, type TableSpec, type View } from './columns';

// ---- services (printService; wide = true, so load-balancer addresses are not clipped) ----

function serviceExternalIP(spec: View, status: View): string {
  const externalIPs: string[] = spec.externalIPs ?? [];
  switch (spec.type ?? 'ClusterIP') {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = [...new Set(((status?.loadBalancer?.ingress ?? []) as View[])
        .map((i) => i.ip || i.hostname).filter(Boolean) as string[])].sort();
      if (externalIPs.length) return [...lb, ...externalIPs].join(',');
      return lb.length ? lb.join(',') : '<pending>';
    }
    case 'ExternalName':
      return spec.externalName ?? '';
    default:
      return '<unknown>';
  }
}

function servicePorts(spec: View): string {
  const ports: View[] = spec.ports ?? [];
  const text = ports
    .map((p) => `${p.port}${p.nodePort > 0 ? `:${p.nodePort}` : ''}/${p.protocol ?? 'TCP'}`)
    .join(',');
  return text || '<none>';
}

export const SERVICE_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Type', 'string', 'type determines how the Service is exposed.', (o) => o.spec?.type ?? 'ClusterIP'),
    // clusterIPs[0]; fall back to clusterIP for objects stored before clusterIPs was filled in.
    col('Cluster-IP', 'string', 'clusterIP is the IP address of the service and is usually assigned randomly.',
      (o) => o.spec?.clusterIPs?.[0] || o.spec?.clusterIP || '<none>'),
    col('External-IP', 'string', 'externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.',
      (o) => serviceExternalIP(o.spec ?? {}, o.status)),
    col('Port(s)', 'string', 'The list of ports that are exposed by this service.', (o) => servicePorts(o.spec ?? {})),
    AGE,
    wide('Selector', 'string', 'Route service traffic to pods with label keys and values matching this selector.',
      (o) => formatLabels(o.spec?.selector)),
  ],
};

// ---- nodes (printNode) ----

function nodeStatus(o: View): string {
  const ready = ((o.status?.conditions ?? []) as View[]).filter((c) => c.type === 'Ready').pop();
  const status = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (o.spec?.unschedulable) status.push('SchedulingDisabled');
  return status.join(',');
}

function nodeRoles(o: View): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries((o.metadata?.labels ?? {}) as Record<string, string>)) {
    if (k.startsWith('node-role.kubernetes.io/') && k.length > 'node-role.kubernetes.io/'.length) {
      roles.add(k.slice('node-role.kubernetes.io/'.length));
    } else if (k === 'kubernetes.io/role' && v !== '') roles.add(v);
  }
  return [...roles].sort().join(',') || '<none>';
}

function nodeAddress(o: View, type: string): string {
  return ((o.status?.addresses ?? []) as View[]).find((a) => a.type === type)?.address ?? '<none>';
}

const NODE_INFO = (field: string) => (o: View) => o.status?.nodeInfo?.[field] || '<unknown>';

export const NODE_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Status', 'string', 'The status of the node', nodeStatus),
    col('Roles', 'string', 'The roles of the node', nodeRoles),
    AGE,
    col('Version', 'string', 'Kubelet Version reported by the node.', (o) => o.status?.nodeInfo?.kubeletVersion ?? ''),
    wide('Internal-IP', 'string', 'List of addresses reachable to the node.', (o) => nodeAddress(o, 'InternalIP')),
    wide('External-IP', 'string', 'List of addresses reachable to the node.', (o) => nodeAddress(o, 'ExternalIP')),
    wide('OS-Image', 'string', 'OS Image reported by the node from /etc/os-release.', NODE_INFO('osImage')),
    wide('Kernel-Version', 'string', "Kernel Version reported by the node from 'uname -r'.", NODE_INFO('kernelVersion')),
    wide('Container-Runtime', 'string', 'ContainerRuntime Version reported by the node through runtime remote API.',
      NODE_INFO('containerRuntimeVersion')),
  ],
};
