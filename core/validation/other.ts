// Core: validation of the smaller served types with kube-apiserver's (v1.32) messages: Namespace,
// ServiceAccount, Node (ValidateNode, validateNodeTaints), Event (legacyValidateEvent for events/v1 core),
// Endpoints (validateEndpointSubsets), EndpointSlice (discovery ValidateEndpointSlice) and Lease
// (coordination ValidateLeaseSpec).
import { goTaint } from './go-values';
import { ipKind, parseIPv4, parseIPv6, specialIPMessages } from './ip';
import {
  duplicate, invalidValue, isDNS1123Subdomain, labelKeyMessages, labelValueMessages, notSupported, required,
  tooMany, validateLabels, utf8Length,
} from './names';
import { dns1123Label } from './pod';
import { PROTOCOLS, portNumMessages } from './ports';
import { Causes, type Obj } from './shape';

const STANDARD_FINALIZERS = ['kubernetes', 'orphan', 'foregroundDeletion'];

export function validateNamespace(v: Causes, obj: Obj): void {
  const spec = v.obj(obj.spec, 'spec') ?? {};
  for (const f of v.strs(spec.finalizers, 'spec.finalizers')) {
    for (const m of labelKeyMessages(f)) v.add(invalidValue('spec.finalizers', f, m));
    if (!f.includes('/') && !STANDARD_FINALIZERS.includes(f)) {
      v.add(invalidValue('spec.finalizers', f, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  }
}

export function validateServiceAccount(v: Causes, obj: Obj): void {
  v.objs(obj.secrets, 'secrets');
  v.objs(obj.imagePullSecrets, 'imagePullSecrets');
  v.bool(obj.automountServiceAccountToken, 'automountServiceAccountToken');
}

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

export function validateNode(v: Causes, obj: Obj): void {
  const spec = v.obj(obj.spec, 'spec') ?? {};
  const byEffect = new Map<string, Set<string>>();
  v.objs(spec.taints, 'spec.taints').forEach((t, i) => {
    const p = `spec.taints[${i}]`;
    const key = v.str(t.key, `${p}.key`) ?? '';
    for (const m of labelKeyMessages(key)) v.add(invalidValue(`${p}.key`, key, m));
    const value = v.str(t.value, `${p}.value`) ?? '';
    const errs = labelValueMessages(value);
    if (errs.length) v.add(invalidValue(`${p}.value`, value, errs.join(';')));
    const effect = v.str(t.effect, `${p}.effect`) ?? '';
    if (effect === '') v.add(required(`${p}.effect`));
    else if (!TAINT_EFFECTS.includes(effect)) v.add(notSupported(`${p}.effect`, effect, TAINT_EFFECTS));
    const keys = byEffect.get(effect) ?? new Set<string>();
    if (keys.has(key)) {
      v.add(duplicate(p, goTaint(key, value, effect), 'taints must be unique by key and effect pair'));
      return;
    }
    keys.add(key);
    byEffect.set(effect, keys);
  });
  const cidrs = v.strs(spec.podCIDRs, 'spec.podCIDRs');
  const podCIDR = v.str(spec.podCIDR, 'spec.podCIDR');
  if (podCIDR && cidrs.length === 0) cidrs.push(podCIDR);
  cidrs.forEach((cidr, i) => {
    if (!cidrKind(cidr)) v.add(invalidValue(`spec.podCIDRs[${i}]`, cidr, 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)'));
  });
  // Several CIDRs must be a dual-stack pair: one IPv4 and one IPv6 (kube reports unparsable ones above).
  const kinds = cidrs.map(cidrKind);
  if (cidrs.length > 1 && kinds.every(Boolean) && (cidrs.length > 2 || kinds[0] === kinds[1])) {
    v.add(invalidValue('spec.podCIDRs', cidrs, 'may specify no more than one CIDR for each IP family'));
  }
  v.bool(spec.unschedulable, 'spec.unschedulable');
}

function cidrKind(s: string): 'v4' | 'v6' | undefined {
  const [ip, bits, extra] = s.split('/');
  if (extra !== undefined || bits === undefined || !/^[0-9]{1,3}$/.test(bits)) return undefined;
  if (parseIPv4(ip)) return Number(bits) <= 32 ? 'v4' : undefined;
  if (parseIPv6(ip)) return Number(bits) <= 128 ? 'v6' : undefined;
  return undefined;
}

const REPORTING_LIMIT = 128;
const NOTE_LIMIT = 1024;

/** legacyValidateEvent as the core/v1 events endpoint runs it. */
export function validateEvent(v: Causes, obj: Obj): void {
  const meta = (obj.metadata as Obj | undefined) ?? {};
  const ns = typeof meta.namespace === 'string' ? meta.namespace : '';
  const involved = v.obj(obj.involvedObject, 'involvedObject') ?? {};
  const involvedNs = v.str(involved.namespace, 'involvedObject.namespace') ?? '';
  const eventTime = v.str(obj.eventTime, 'eventTime');
  const reason = v.str(obj.reason, 'reason') ?? '';
  const message = v.str(obj.message, 'message') ?? '';
  const action = v.str(obj.action, 'action') ?? '';
  const controller = v.str(obj.reportingComponent, 'reportingComponent') ?? '';
  const instance = v.str(obj.reportingInstance, 'reportingInstance') ?? '';
  v.int(obj.count, 'count');
  const mismatch = () => v.add(invalidValue('involvedObject.namespace', involvedNs, 'does not match event.namespace'));
  if (!eventTime) {
    if (involvedNs === '') {
      if (ns !== '' && ns !== 'default') mismatch();
    } else if (ns !== involvedNs) {
      mismatch();
    }
  } else {
    if (involvedNs === '' && ns !== 'default' && ns !== 'kube-system') mismatch();
    if (controller === '') v.add(required('reportingComponent'));
    for (const m of labelKeyMessages(controller)) v.add(invalidValue('reportingComponent', controller, m));
    if (instance === '') v.add(required('reportingInstance'));
    if (utf8Length(instance) > REPORTING_LIMIT) v.add(invalidValue('reportingInstance', '', `can have at most ${REPORTING_LIMIT} characters`));
    if (action === '') v.add(required('action'));
    if (utf8Length(action) > REPORTING_LIMIT) v.add(invalidValue('action', '', `can have at most ${REPORTING_LIMIT} characters`));
    if (reason === '') v.add(required('reason'));
    if (utf8Length(reason) > REPORTING_LIMIT) v.add(invalidValue('reason', '', `can have at most ${REPORTING_LIMIT} characters`));
    if (utf8Length(message) > NOTE_LIMIT) v.add(invalidValue('message', '', `can have at most ${NOTE_LIMIT} characters`));
  }
  for (const m of isDNS1123Subdomain(ns)) v.add(invalidValue('namespace', ns, m));
}

const BAD_IP = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';

export function validateEndpoints(v: Causes, obj: Obj): void {
  v.objs(obj.subsets, 'subsets').forEach((ss, i) => {
    const p = `subsets[${i}]`;
    const addresses = v.objs(ss.addresses, `${p}.addresses`);
    const notReady = v.objs(ss.notReadyAddresses, `${p}.notReadyAddresses`);
    if (addresses.length === 0 && notReady.length === 0) v.add(required(p, 'must specify `addresses` or `notReadyAddresses`'));
    addresses.forEach((a, j) => endpointAddress(v, a, `${p}.addresses[${j}]`));
    notReady.forEach((a, j) => endpointAddress(v, a, `${p}.notReadyAddresses[${j}]`));
    const ports = v.objs(ss.ports, `${p}.ports`);
    ports.forEach((port, j) => {
      const pp = `${p}.ports[${j}]`;
      const name = v.str(port.name, `${pp}.name`) ?? '';
      if (ports.length > 1 && name === '') v.add(required(`${pp}.name`));
      else if (name !== '') dns1123Label(v, name, `${pp}.name`);
      const num = v.int(port.port, `${pp}.port`) ?? (port.port === undefined ? 0 : undefined);
      if (num !== undefined) for (const m of portNumMessages(num)) v.add(invalidValue(`${pp}.port`, num, m));
      protocol(v, port.protocol, `${pp}.protocol`);
    });
  });
}

function protocol(v: Causes, raw: unknown, path: string): void {
  const value = raw === undefined ? 'TCP' : v.str(raw, path);
  if (value === '') v.add(required(path));
  else if (value !== undefined && !(PROTOCOLS as readonly string[]).includes(value)) v.add(notSupported(path, value, PROTOCOLS));
}

function endpointAddress(v: Causes, a: Obj, path: string): void {
  const ip = v.str(a.ip, `${path}.ip`) ?? '';
  const valid = ipKind(ip) !== undefined;
  if (!valid) v.add(invalidValue(`${path}.ip`, ip, BAD_IP));
  const hostname = v.str(a.hostname, `${path}.hostname`);
  if (hostname) dns1123Label(v, hostname, `${path}.hostname`);
  const nodeName = v.str(a.nodeName, `${path}.nodeName`);
  if (nodeName !== undefined) for (const m of isDNS1123Subdomain(nodeName)) v.add(invalidValue(`${path}.nodeName`, nodeName, m));
  if (!valid) v.add(invalidValue(`${path}.ip`, ip, 'must be a valid IP address'));
  else for (const m of specialIPMessages(ip)) v.add(invalidValue(`${path}.ip`, ip, m));
}

const ADDRESS_TYPES = ['FQDN', 'IPv4', 'IPv6'];

export function validateEndpointSlice(v: Causes, obj: Obj): void {
  const addressType = v.str(obj.addressType, 'addressType');
  if (obj.addressType === undefined || addressType === '') v.add(required('addressType'));
  else if (addressType !== undefined && !ADDRESS_TYPES.includes(addressType)) v.add(notSupported('addressType', addressType, ADDRESS_TYPES));
  const endpoints = v.objs(obj.endpoints, 'endpoints');
  if (endpoints.length > 1000) v.add(tooMany('endpoints', endpoints.length, 1000));
  else {
    endpoints.forEach((ep, i) => {
      const p = `endpoints[${i}]`;
      const addresses = v.strs(ep.addresses, `${p}.addresses`);
      if (addresses.length === 0) v.add(required(`${p}.addresses`, 'must contain at least 1 address'));
      else if (addresses.length > 100) v.add(tooMany(`${p}.addresses`, addresses.length, 100));
      addresses.forEach((addr, j) => {
        const ap = `${p}.addresses[${j}]`;
        if (addressType === 'IPv4') {
          if (!parseIPv4(addr)) v.add(invalidValue(ap, addr, 'must be a valid IPv4 address'));
          else for (const m of specialIPMessages(addr)) v.add(invalidValue(ap, addr, m));
        } else if (addressType === 'IPv6') {
          if (!parseIPv6(addr)) v.add(invalidValue(ap, addr, 'must be a valid IPv6 address'));
          else for (const m of specialIPMessages(addr)) v.add(invalidValue(ap, addr, m));
        } else if (addressType === 'FQDN') {
          for (const m of isDNS1123Subdomain(addr)) v.add(invalidValue(ap, addr, m));
        }
      });
      const nodeName = v.str(ep.nodeName, `${p}.nodeName`);
      if (nodeName !== undefined) for (const m of isDNS1123Subdomain(nodeName)) v.add(invalidValue(`${p}.nodeName`, nodeName, m));
      const topo = v.obj(ep.deprecatedTopology, `${p}.deprecatedTopology`);
      if (topo && Object.keys(topo).length > 16) v.add(tooMany(`${p}.deprecatedTopology`, Object.keys(topo).length, 16));
      v.add(...validateLabels(topo, `${p}.deprecatedTopology`));
      const hostname = v.str(ep.hostname, `${p}.hostname`);
      if (hostname !== undefined) dns1123Label(v, hostname, `${p}.hostname`);
    });
  }
  const ports = v.objs(obj.ports, 'ports');
  if (ports.length > 20000) {
    v.add(tooMany('ports', ports.length, 20000));
    return;
  }
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const p = `ports[${i}]`;
    const name = v.str(port.name, `${p}.name`) ?? '';
    if (name !== '') dns1123Label(v, name, `${p}.name`);
    if (names.has(name)) v.add(duplicate(`${p}.name`, name));
    else names.add(name);
    protocol(v, port.protocol, `${p}.protocol`);
    v.int(port.port, `${p}.port`);
  });
}

export function validateLease(v: Causes, obj: Obj): void {
  const spec = v.obj(obj.spec, 'spec') ?? {};
  const duration = v.int(spec.leaseDurationSeconds, 'spec.leaseDurationSeconds');
  if (duration !== undefined && duration <= 0) v.add(invalidValue('spec.leaseDurationSeconds', duration, 'must be greater than 0'));
  const transitions = v.int(spec.leaseTransitions, 'spec.leaseTransitions');
  if (transitions !== undefined && transitions < 0) v.add(invalidValue('spec.leaseTransitions', transitions, 'must be greater than or equal to 0'));
  v.str(spec.holderIdentity, 'spec.holderIdentity');
  v.str(spec.acquireTime, 'spec.acquireTime');
  v.str(spec.renewTime, 'spec.renewTime');
}
