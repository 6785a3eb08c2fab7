// Core: Service validation with kube-apiserver's (v1.32) messages and order, after
// pkg/apis/core/validation ValidateService and validateServicePort. Defaulted fields (type, protocol,
// targetPort, sessionAffinity) read with their defaults when absent.
import { goServicePortKey } from './go-values';
import { duplicate, forbidden, invalidValue, isDNS1123Subdomain, notSupported, required, validateLabels } from './names';
import { dns1123Label } from './pod';
import { PROTOCOLS, portNumMessages, portNumOrName } from './ports';
import { Causes, isObj, type Obj } from './shape';

const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort']; // sets.List order
const AFFINITIES = ['ClientIP', 'None'];
const TRAFFIC_POLICIES = ['Cluster', 'Local'];

export function validateService(v: Causes, obj: Obj, old?: Obj): void {
  if (old) validateAddressUpdate(v, obj, old);
  const path = 'spec';
  const spec = v.obj(obj.spec, path) ?? {};
  const type = spec.type === undefined ? 'ClusterIP' : v.str(spec.type, `${path}.type`);
  const clusterIP = v.str(spec.clusterIP, `${path}.clusterIP`) ?? '';
  const headless = clusterIP === 'None';
  const ports = v.objs(spec.ports, `${path}.ports`);
  if (ports.length === 0 && !headless && type !== 'ExternalName') v.add(required(`${path}.ports`));
  if (type === 'NodePort' && headless) v.add(invalidValue(`${path}.clusterIPs[0]`, clusterIP, "may not be set to 'None' for NodePort services"));
  if (type === 'LoadBalancer' && headless) v.add(invalidValue(`${path}.clusterIPs[0]`, clusterIP, "may not be set to 'None' for LoadBalancer services"));
  if (type === 'ExternalName') {
    if (clusterIP !== '') v.add(forbidden(`${path}.clusterIPs`, 'may not be set for ExternalName services'));
    const cname = (v.str(spec.externalName, `${path}.externalName`) ?? '').replace(/\.$/, '');
    if (cname) for (const m of isDNS1123Subdomain(cname)) v.add(invalidValue(`${path}.externalName`, cname, m));
    else v.add(required(`${path}.externalName`));
  }
  const names = new Set<string>();
  ports.forEach((port, i) => validateServicePort(v, port, ports.length > 1, names, `${path}.ports[${i}]`));
  v.add(...validateLabels(spec.selector, `${path}.selector`));
  const affinity = spec.sessionAffinity === undefined ? 'None' : v.str(spec.sessionAffinity, `${path}.sessionAffinity`);
  if (affinity === '') v.add(required(`${path}.sessionAffinity`));
  else if (affinity !== undefined && !AFFINITIES.includes(affinity)) v.add(notSupported(`${path}.sessionAffinity`, affinity, AFFINITIES));
  if (affinity === 'None' && spec.sessionAffinityConfig !== undefined && spec.sessionAffinityConfig !== null) {
    v.add(forbidden(`${path}.sessionAffinityConfig`, 'must not be set when session affinity is None'));
  }
  v.strs(spec.externalIPs, `${path}.externalIPs`);
  if (type === '') v.add(required(`${path}.type`));
  else if (type !== undefined && !SERVICE_TYPES.includes(type)) v.add(notSupported(`${path}.type`, type, SERVICE_TYPES));
  if (type === 'ClusterIP') {
    ports.forEach((port, i) => {
      if (typeof port.nodePort === 'number' && port.nodePort !== 0) {
        v.add(forbidden(`${path}.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"));
      }
    });
  }
  const nodePorts = new Set<string>();
  ports.forEach((port, i) => {
    if (typeof port.nodePort !== 'number' || port.nodePort === 0) return;
    const key = `${protocolOf(port)}/${port.nodePort}`;
    if (nodePorts.has(key)) v.add(duplicate(`${path}.ports[${i}].nodePort`, port.nodePort));
    nodePorts.add(key);
  });
  const seen = new Set<string>();
  ports.forEach((port, i) => {
    const protocol = protocolOf(port);
    const number = typeof port.port === 'number' ? port.port : 0;
    const key = `${protocol}/${number}`;
    if (seen.has(key)) v.add(duplicate(`${path}.ports[${i}]`, goServicePortKey(protocol, number)));
    seen.add(key);
  });
  for (const field of ['internalTrafficPolicy', 'externalTrafficPolicy']) {
    const value = v.str(spec[field], `${path}.${field}`);
    if (value && !TRAFFIC_POLICIES.includes(value)) v.add(notSupported(`${path}.${field}`, value, TRAFFIC_POLICIES));
  }
  if (typeof spec.externalTrafficPolicy === 'string' && spec.externalTrafficPolicy !== '' && (type === 'ClusterIP' || type === 'ExternalName')) {
    v.add(invalidValue(`${path}.externalTrafficPolicy`, spec.externalTrafficPolicy, 'may only be set for externally-accessible services'));
  }
}

/**
 * ValidateServiceUpdate's validateUpgradeDowngradeClusterIPs and validateUpgradeDowngradeIPFamilies: an address
 * (and its family) may not change once set, except to or from ExternalName (allocation adds or frees it).
 */
function validateAddressUpdate(v: Causes, obj: Obj, old: Obj): void {
  const spec = (isObj(obj.spec) ? obj.spec : {}) as { type?: unknown; clusterIPs?: unknown; ipFamilies?: unknown; ipFamilyPolicy?: unknown };
  const before = (isObj(old.spec) ? old.spec : {}) as typeof spec;
  if (spec.type === 'ExternalName' || before.type === 'ExternalName') return;
  const list = (x: unknown): string[] => (Array.isArray(x) ? x.filter((s): s is string => typeof s === 'string') : []);
  const ips = list(spec.clusterIPs);
  const oldIPs = list(before.clusterIPs);
  const headless = (l: string[]) => l.length === 1 && l[0] === 'None';
  if (headless(ips) && headless(oldIPs)) return;
  const changed = (i: number) => invalidValue(`spec.clusterIPs[${i}]`, ips, 'may not change once set');
  if (oldIPs.length === ips.length) {
    oldIPs.forEach((ip, i) => ip !== ips[i] && v.add(changed(i)));
  } else if (oldIPs.length > ips.length) {
    if (!ips.length) v.add(invalidValue('spec.clusterIPs[0]', ips, 'primary clusterIP can not be unset'));
    else if (ips[0] !== oldIPs[0]) v.add(changed(0));
    if (ips.length === 1 && spec.ipFamilyPolicy !== 'SingleStack') {
      v.add(invalidValue('spec.ipFamilyPolicy', spec.ipFamilyPolicy ?? null, "must be set to 'SingleStack' when releasing the secondary clusterIP"));
    }
  } else if (oldIPs.length && ips[0] !== oldIPs[0]) v.add(changed(0));
  if (headless(ips) !== headless(oldIPs) || headless(ips)) return;
  const families = list(spec.ipFamilies);
  const oldFamilies = list(before.ipFamilies);
  if (oldFamilies.length === families.length) {
    oldFamilies.forEach((f, i) => f !== families[i] && v.add(invalidValue('spec.ipFamilies[0]', families, 'may not change once set')));
  } else if (oldFamilies.length > families.length) {
    if (!ips.length) v.add(invalidValue('spec.ipFamilies[0]', families, 'primary ipFamily can not be unset'));
    if (families.length && families[0] !== oldFamilies[0]) v.add(invalidValue('spec.ipFamilies[0]', ips, 'may not change once set'));
  } else if (oldFamilies.length && families.length && families[0] !== oldFamilies[0]) {
    v.add(invalidValue('spec.ipFamilies[0]', ips, 'may not change once set'));
  }
}

function protocolOf(port: Obj): string {
  return typeof port.protocol === 'string' ? port.protocol : 'TCP';
}

function validateServicePort(v: Causes, sp: Obj, requireName: boolean, names: Set<string>, path: string): void {
  const name = v.str(sp.name, `${path}.name`) ?? '';
  if (requireName && name === '') v.add(required(`${path}.name`));
  else if (name !== '') {
    dns1123Label(v, name, `${path}.name`);
    if (names.has(name)) v.add(duplicate(`${path}.name`, name));
    else names.add(name);
  }
  const port = sp.port === undefined ? 0 : v.int(sp.port, `${path}.port`);
  if (port !== undefined) for (const m of portNumMessages(port)) v.add(invalidValue(`${path}.port`, port, m));
  const protocol = sp.protocol === undefined ? 'TCP' : v.str(sp.protocol, `${path}.protocol`);
  if (protocol === '') v.add(required(`${path}.protocol`));
  else if (protocol !== undefined && !(PROTOCOLS as readonly string[]).includes(protocol)) v.add(notSupported(`${path}.protocol`, protocol, PROTOCOLS));
  // targetPort defaults to port.
  const target = sp.targetPort === undefined || sp.targetPort === null ? port : v.intOrString(sp.targetPort, `${path}.targetPort`);
  if (target !== undefined) v.add(...portNumOrName(target, `${path}.targetPort`));
}
