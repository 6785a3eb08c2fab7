// Core: the Pod Security Standards checks as kube 1.32 evaluates them (k8s.io/pod-security-admission/policy,
// each check_*.go at its 1.32 version): baseline and restricted, in the registry's order (baseline checks that a
// restricted check overrides run only at baseline, after the others), each failure as kube words its reason and
// detail. Linear in the pod: every check visits each container and volume once.

type Obj = Record<string, any>;

export type Level = 'privileged' | 'baseline' | 'restricted';

export interface CheckResult {
  reason: string;
  detail: string;
}

type Check = (meta: Obj, spec: Obj) => CheckResult | undefined;

const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter((x) => x && typeof x === 'object') : []);
const joinQuote = (items: string[]) => (items.length ? `"${items.join('", "')}"` : '');
const pluralize = (singular: string, plural: string, n: number) => (n === 1 ? singular : plural);
const sortedUnique = (items: Iterable<string>) => [...new Set(items)].sort();

/** visitContainers: init containers, containers, ephemeral containers. */
function containers(spec: Obj): Obj[] {
  return [...list(spec.initContainers), ...list(spec.containers), ...list(spec.ephemeralContainers)];
}

function named(what: string, names: string[]): string {
  return `${pluralize(what, `${what}s`, names.length)} ${joinQuote(names)}`;
}

// ---- baseline ----

function appArmorProfile(meta: Obj, spec: Obj): CheckResult | undefined {
  const bad = new Set<string>();
  const badType = (p: Obj | undefined) => p && typeof p === 'object' && p.type !== undefined && p.type !== 'RuntimeDefault' && p.type !== 'Localhost';
  if (badType(spec.securityContext?.appArmorProfile)) bad.add(String(spec.securityContext.appArmorProfile.type));
  for (const c of containers(spec)) if (badType(c.securityContext?.appArmorProfile)) bad.add(String(c.securityContext.appArmorProfile.type));
  const annotations = meta.annotations && typeof meta.annotations === 'object' ? meta.annotations as Record<string, unknown> : {};
  for (const [k, v] of Object.entries(annotations)) {
    if (!k.startsWith('container.apparmor.security.beta.kubernetes.io/')) continue;
    const value = String(v);
    if (value !== 'runtime/default' && !value.startsWith('localhost/')) bad.add(`${k}="${value}"`);
  }
  if (!bad.size) return undefined;
  const values = sortedUnique(bad);
  return { reason: pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', values.length), detail: values.map((v) => (v.includes('=') ? v : `"${v}"`)).join(', ') };
}

function hostNamespaces(_meta: Obj, spec: Obj): CheckResult | undefined {
  const used = ['hostIPC', 'hostNetwork', 'hostPID'].filter((k) => spec[k] === true);
  return used.length ? { reason: 'host namespaces', detail: used.join(', ') } : undefined;
}

function hostPorts(_meta: Obj, spec: Obj): CheckResult | undefined {
  const bad: string[] = [];
  const ports = new Set<string>();
  for (const c of containers(spec)) {
    let found = false;
    for (const p of list(c.ports)) {
      if (typeof p.hostPort === 'number' && p.hostPort !== 0) {
        found = true;
        ports.add(String(p.hostPort));
      }
    }
    if (found) bad.push(String(c.name ?? ''));
  }
  if (!bad.length) return undefined;
  const sorted = sortedUnique(ports);
  return { reason: 'hostPort', detail: `${named('container', bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('hostPort', 'hostPorts', sorted.length)} ${sorted.join(', ')}` };
}

function privileged(_meta: Obj, spec: Obj): CheckResult | undefined {
  const bad = containers(spec).filter((c) => c.securityContext?.privileged === true).map((c) => String(c.name ?? ''));
  return bad.length ? { reason: 'privileged', detail: `${named('container', bad)} must not set securityContext.privileged=true` } : undefined;
}

function procMount(_meta: Obj, spec: Obj): CheckResult | undefined {
  const bad: string[] = [];
  const values = new Set<string>();
  for (const c of containers(spec)) {
    const pm = c.securityContext?.procMount;
    if (pm !== undefined && pm !== null && pm !== 'Default') {
      bad.push(String(c.name ?? ''));
      values.add(String(pm));
    }
  }
  return bad.length ? { reason: 'procMount', detail: `${named('container', bad)} must not set securityContext.procMount to ${joinQuote(sortedUnique(values))}` } : undefined;
}

const SELINUX_TYPES = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t', 'container_engine_t']);
function seLinuxOptions(_meta: Obj, spec: Obj): CheckResult | undefined {
  const types = new Set<string>();
  let user = false;
  let role = false;
  const badOpts = (o: Obj | undefined) => {
    if (!o || typeof o !== 'object') return false;
    let bad = false;
    if (o.type !== undefined && !SELINUX_TYPES.has(String(o.type))) {
      types.add(String(o.type));
      bad = true;
    }
    if (o.user) user = bad = true;
    if (o.role) role = bad = true;
    return bad;
  };
  const setters: string[] = [];
  if (badOpts(spec.securityContext?.seLinuxOptions)) setters.push('pod');
  const bad = containers(spec).filter((c) => badOpts(c.securityContext?.seLinuxOptions)).map((c) => String(c.name ?? ''));
  if (bad.length) setters.push(named('container', bad));
  if (!setters.length) return undefined;
  const data: string[] = [];
  if (types.size) data.push(`${pluralize('type', 'types', types.size)} ${joinQuote(sortedUnique(types))}`);
  if (user) data.push('user may not be set');
  if (role) data.push('role may not be set');
  return { reason: 'seLinuxOptions', detail: `${setters.join(', ')} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}` };
}

// The safe sysctls of 1.32 (check_sysctls.go sysctls_allowed_1_32).
const SAFE_SYSCTLS = new Set([
  'kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.ip_unprivileged_port_start', 'net.ipv4.tcp_syncookies',
  'net.ipv4.ping_group_range', 'net.ipv4.ip_local_reserved_ports', 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout',
  'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes', 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem',
]);
function sysctls(_meta: Obj, spec: Obj): CheckResult | undefined {
  const bad = list(spec.securityContext?.sysctls).map((s) => String(s.name ?? '')).filter((n) => !SAFE_SYSCTLS.has(n));
  return bad.length ? { reason: 'forbidden sysctls', detail: bad.join(', ') } : undefined;
}

function windowsHostProcess(_meta: Obj, spec: Obj): CheckResult | undefined {
  const setters: string[] = [];
  if (spec.securityContext?.windowsOptions?.hostProcess === true) setters.push('pod');
  const bad = containers(spec).filter((c) => c.securityContext?.windowsOptions?.hostProcess === true).map((c) => String(c.name ?? ''));
  if (bad.length) setters.push(named('container', bad));
  return setters.length ? { reason: 'hostProcess', detail: `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true` } : undefined;
}

// Baseline checks a restricted check replaces (Overlap): evaluated at baseline only.
const BASELINE_CAPABILITIES = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);
function capabilitiesBaseline(_meta: Obj, spec: Obj): CheckResult | undefined {
  const bad: string[] = [];
  const caps = new Set<string>();
  for (const c of containers(spec)) {
    const add = c.securityContext?.capabilities?.add;
    let invalid = false;
    for (const cap of Array.isArray(add) ? add : []) {
      if (!BASELINE_CAPABILITIES.has(String(cap))) {
        invalid = true;
        caps.add(String(cap));
      }
    }
    if (invalid) bad.push(String(c.name ?? ''));
  }
  return bad.length ? { reason: 'non-default capabilities', detail: `${named('container', bad)} must not include ${joinQuote(sortedUnique(caps))} in securityContext.capabilities.add` } : undefined;
}

function hostPathVolumes(_meta: Obj, spec: Obj): CheckResult | undefined {
  const bad = list(spec.volumes).filter((v) => v.hostPath).map((v) => String(v.name ?? ''));
  return bad.length ? { reason: 'hostPath volumes', detail: named('volume', bad) } : undefined;
}

function seccompProfileBaseline(_meta: Obj, spec: Obj): CheckResult | undefined {
  const setters: string[] = [];
  if (spec.securityContext?.seccompProfile?.type === 'Unconfined') setters.push('pod');
  const bad = containers(spec).filter((c) => c.securityContext?.seccompProfile?.type === 'Unconfined').map((c) => String(c.name ?? ''));
  if (bad.length) setters.push(named('container', bad));
  return setters.length ? { reason: 'seccompProfile', detail: `${setters.join(' and ')} must not set securityContext.seccompProfile.type to "Unconfined"` } : undefined;
}

// ---- restricted ----

function allowPrivilegeEscalation(_meta: Obj, spec: Obj): CheckResult | undefined {
  const bad = containers(spec).filter((c) => c.securityContext?.allowPrivilegeEscalation !== false).map((c) => String(c.name ?? ''));
  return bad.length ? { reason: 'allowPrivilegeEscalation != false', detail: `${named('container', bad)} must set securityContext.allowPrivilegeEscalation=false` } : undefined;
}

function capabilitiesRestricted(_meta: Obj, spec: Obj): CheckResult | undefined {
  const missingDrop: string[] = [];
  const adding: string[] = [];
  const caps = new Set<string>();
  for (const c of containers(spec)) {
    const capabilities = c.securityContext?.capabilities;
    if (!capabilities || typeof capabilities !== 'object') {
      missingDrop.push(String(c.name ?? ''));
      continue;
    }
    if (!(Array.isArray(capabilities.drop) && capabilities.drop.includes('ALL'))) missingDrop.push(String(c.name ?? ''));
    let forbidden = false;
    for (const cap of Array.isArray(capabilities.add) ? capabilities.add : []) {
      if (cap !== 'NET_BIND_SERVICE') {
        forbidden = true;
        caps.add(String(cap));
      }
    }
    if (forbidden) adding.push(String(c.name ?? ''));
  }
  const details: string[] = [];
  if (missingDrop.length) details.push(`${named('container', missingDrop)} must set securityContext.capabilities.drop=["ALL"]`);
  if (adding.length) details.push(`${named('container', adding)} must not include ${joinQuote(sortedUnique(caps))} in securityContext.capabilities.add`);
  return details.length ? { reason: 'unrestricted capabilities', detail: details.join('; ') } : undefined;
}

const ALLOWED_VOLUME_SOURCES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];
const RESTRICTED_VOLUME_SOURCES = [
  'hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'nfs', 'iscsi', 'glusterfs', 'rbd', 'flexVolume', 'cinder', 'cephfs',
  'flocker', 'fc', 'azureFile', 'vsphereVolume', 'quobyte', 'azureDisk', 'portworxVolume', 'photonPersistentDisk', 'scaleIO', 'storageos', 'image',
];
function restrictedVolumes(_meta: Obj, spec: Obj): CheckResult | undefined {
  const bad: string[] = [];
  const types = new Set<string>();
  for (const v of list(spec.volumes)) {
    if (ALLOWED_VOLUME_SOURCES.some((k) => v[k])) continue;
    bad.push(String(v.name ?? ''));
    const source = RESTRICTED_VOLUME_SOURCES.find((k) => v[k]);
    if (source) types.add(source);
  }
  if (!bad.length) return undefined;
  const sorted = sortedUnique(types);
  return {
    reason: 'restricted volume types',
    detail: `${named('volume', bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('restricted volume type', 'restricted volume types', sorted.length)} ${joinQuote(sorted)}`,
  };
}

function runAsNonRoot(_meta: Obj, spec: Obj): CheckResult | undefined {
  const setters: string[] = [];
  let podNonRoot = false;
  const podValue = spec.securityContext?.runAsNonRoot;
  if (typeof podValue === 'boolean') {
    if (!podValue) setters.push('pod');
    else podNonRoot = true;
  }
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of containers(spec)) {
    const v = c.securityContext?.runAsNonRoot;
    if (typeof v === 'boolean') {
      if (!v) explicit.push(String(c.name ?? ''));
    } else if (!podNonRoot) {
      implicit.push(String(c.name ?? ''));
    }
  }
  if (explicit.length) setters.push(named('container', explicit));
  if (setters.length) return { reason: 'runAsNonRoot != true', detail: `${setters.join(' and ')} must not set securityContext.runAsNonRoot=false` };
  if (implicit.length) return { reason: 'runAsNonRoot != true', detail: `pod or ${named('container', implicit)} must set securityContext.runAsNonRoot=true` };
  return undefined;
}

function runAsUser(_meta: Obj, spec: Obj): CheckResult | undefined {
  const setters: string[] = [];
  if (spec.securityContext?.runAsUser === 0) setters.push('pod');
  const bad = containers(spec).filter((c) => c.securityContext?.runAsUser === 0).map((c) => String(c.name ?? ''));
  if (bad.length) setters.push(named('container', bad));
  return setters.length ? { reason: 'runAsUser=0', detail: `${setters.join(' and ')} must not set runAsUser=0` } : undefined;
}

const validSeccomp = (t: unknown) => t === 'RuntimeDefault' || t === 'Localhost';
function seccompProfileRestricted(_meta: Obj, spec: Obj): CheckResult | undefined {
  const setters: string[] = [];
  const values = new Set<string>();
  let podSet = false;
  const podProfile = spec.securityContext?.seccompProfile;
  if (podProfile && typeof podProfile === 'object') {
    if (!validSeccomp(podProfile.type)) {
      setters.push('pod');
      values.add(String(podProfile.type ?? ''));
    } else podSet = true;
  }
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of containers(spec)) {
    const p = c.securityContext?.seccompProfile;
    if (p && typeof p === 'object') {
      if (!validSeccomp(p.type)) {
        explicit.push(String(c.name ?? ''));
        values.add(String(p.type ?? ''));
      }
    } else if (!podSet) {
      implicit.push(String(c.name ?? ''));
    }
  }
  if (explicit.length) setters.push(named('container', explicit));
  if (setters.length) return { reason: 'seccompProfile', detail: `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedUnique(values))}` };
  if (implicit.length) return { reason: 'seccompProfile', detail: `pod or ${named('container', implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"` };
  return undefined;
}

// Registry order: checks register in file-name order; non-overlapping baseline, then (baseline) the overlapping
// ones or (restricted) the restricted ones.
const BASELINE: Check[] = [appArmorProfile, hostNamespaces, hostPorts, privileged, procMount, seLinuxOptions, sysctls, windowsHostProcess];
const BASELINE_ONLY: Check[] = [capabilitiesBaseline, hostPathVolumes, seccompProfileBaseline];
const RESTRICTED: Check[] = [allowPrivilegeEscalation, capabilitiesRestricted, restrictedVolumes, runAsNonRoot, runAsUser, seccompProfileRestricted];

/** The failed checks of a pod (its metadata and spec) at a level; empty when it conforms. */
export function evaluatePod(level: Level, meta: Obj, spec: Obj): CheckResult[] {
  if (level === 'privileged') return [];
  const checks = [...BASELINE, ...(level === 'baseline' ? BASELINE_ONLY : RESTRICTED)];
  const out: CheckResult[] = [];
  for (const check of checks) {
    const r = check(meta ?? {}, spec ?? {});
    if (r) out.push(r);
  }
  return out;
}

/** AggregateCheckResult.ForbiddenDetail: `reason (detail)`, comma-separated. */
export function forbiddenDetail(results: CheckResult[]): string {
  return results.map((r) => (r.detail ? `${r.reason} (${r.detail})` : r.reason)).join(', ');
}
