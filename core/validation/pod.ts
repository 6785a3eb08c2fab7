// Core: Pod and pod-template validation with kube-apiserver's (v1.32) messages and order, after
// pkg/apis/core/validation ValidatePodSpec, validateContainers, ValidateVolumes, ValidateEnv,
// validateContainerPorts, ValidateResourceRequirements and the probe handlers. Fields the server
// defaults (restartPolicy, dnsPolicy, protocol, imagePullPolicy, probe periods, ...) are read with their
// default when absent, so the verdict is the same before and after defaulting.
import {
  duplicate, forbidden, goQuote, GoLiteral, invalidValue, isDNS1123Label, isDNS1123Subdomain, labelKeyMessages,
  labelValueMessages, notFound, notSupported, regexError, required, validateAnnotations, validateLabels,
} from './names';
import { PROTOCOLS, portNumMessages, portNameMessages, portNumOrName } from './ports';
import { compareQuantity, formatQuantity, isNegative, isWhole, tryParseQuantity as parseQuantity, type Quantity } from '../quantity';
import { Causes, entries, isObj, type Obj } from './shape';

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];
const TERMINATION_MESSAGE_POLICIES = ['File', 'FallbackToLogsOnError'];
const NOT_ALWAYS_INIT = 'may not be set for init containers without restartPolicy=Always';

// The volume sources of core/v1 VolumeSource, in validateVolumeSource's order.
const VOLUME_SOURCES = [
  'hostPath', 'emptyDir', 'gitRepo', 'gcePersistentDisk', 'awsElasticBlockStore', 'secret', 'nfs', 'iscsi',
  'glusterfs', 'flocker', 'persistentVolumeClaim', 'rbd', 'quobyte', 'cinder', 'cephfs', 'downwardAPI', 'fc',
  'azureFile', 'vsphereVolume', 'photonPersistentDisk', 'portworxVolume', 'azureDisk', 'storageos', 'scaleIO',
  'configMap', 'projected', 'csi', 'ephemeral', 'image',
];

export function dns1123Label(v: Causes, value: string, path: string): void {
  for (const msg of isDNS1123Label(value)) v.add(invalidValue(path, value, msg));
}

/** ValidatePodTemplateSpec: labels and annotations (at `<path>.labels`, the inlined ObjectMeta) and the spec. */
export function validatePodTemplate(v: Causes, template: Obj | undefined, path: string): void {
  const t = template ?? {};
  const meta = v.obj(t.metadata, `${path}.metadata`) ?? {};
  v.add(...validateLabels(meta.labels, `${path}.labels`));
  v.add(...validateAnnotations(meta.annotations, `${path}.annotations`));
  const spec = v.obj(t.spec, `${path}.spec`) ?? {};
  validatePodSpec(v, spec, `${path}.spec`);
  if (Array.isArray(spec.ephemeralContainers) && spec.ephemeralContainers.length > 0) {
    v.add(forbidden(`${path}.spec.ephemeralContainers`, 'ephemeral containers not allowed in pod template'));
  }
}

const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
const annotationsOf = (pod: Obj | undefined): Obj => {
  const meta = isObj(pod?.metadata) ? pod.metadata : {};
  return isObj(meta.annotations) ? meta.annotations : {};
};

/**
 * ValidatePod (create and update): ValidatePodSpecificAnnotations' mirror pod rule, the spec, the pod-only
 * container image whitespace rule, then on update ValidatePodSpecificAnnotationUpdates: a static pod's mirror
 * (kubernetes.io/config.mirror) cannot be made, unmade or changed by an update, only created as one.
 */
export function validatePod(v: Causes, pod: Obj, old?: Obj): void {
  const annotations = annotationsOf(pod);
  if (MIRROR_POD_ANNOTATION in annotations) {
    const nodeName = isObj(pod.spec) ? pod.spec.nodeName : undefined;
    if (typeof nodeName !== 'string' || nodeName === '') {
      v.add(invalidValue(`metadata.annotations[${MIRROR_POD_ANNOTATION}]`, annotations[MIRROR_POD_ANNOTATION], 'must set spec.nodeName if mirror pod annotation is set'));
    }
  }
  const spec = v.obj(pod.spec, 'spec') ?? {};
  validatePodSpec(v, spec, 'spec');
  for (const field of ['containers', 'initContainers']) {
    // Read again without reporting: validatePodSpec already reported a list of the wrong type.
    (Array.isArray(spec[field]) ? (spec[field] as unknown[]) : []).forEach((c, i) => {
      if (isObj(c) && typeof c.image === 'string' && c.image !== c.image.trim()) {
        v.add(invalidValue(`spec.${field}[${i}].image`, c.image, 'must not have leading or trailing whitespace'));
      }
    });
  }
  if (!old && Array.isArray(spec.ephemeralContainers) && spec.ephemeralContainers.length > 0) {
    v.add(forbidden('spec.ephemeralContainers', 'cannot be set on create'));
  }
  if (old) validateMirrorAnnotationUpdate(v, annotations, annotationsOf(old));
}

/** The mirror half of ValidatePodSpecificAnnotationUpdates (also run on pods/status updates). */
export function validateMirrorAnnotationUpdate(v: Causes, annotations: Obj, oldAnnotations: Obj): void {
  const path = `metadata.annotations[${MIRROR_POD_ANNOTATION}]`;
  const had = MIRROR_POD_ANNOTATION in oldAnnotations;
  const has = MIRROR_POD_ANNOTATION in annotations;
  if (had && (!has || annotations[MIRROR_POD_ANNOTATION] !== oldAnnotations[MIRROR_POD_ANNOTATION])) {
    v.add(forbidden(path, 'may not remove or update mirror pod annotation'));
  } else if (!had && has) {
    v.add(forbidden(path, 'may not add mirror pod annotation'));
  }
}

export function validatePodSpec(v: Causes, spec: Obj, path: string): void {
  // Defaulted to 30 when absent; kube accepts a negative value (the kubelet treats it as 1).
  if (spec.terminationGracePeriodSeconds === null) v.add(required(`${path}.terminationGracePeriodSeconds`, 'must be set'));
  else v.int(spec.terminationGracePeriodSeconds, `${path}.terminationGracePeriodSeconds`);
  const volumes = validateVolumes(v, spec.volumes, `${path}.volumes`);
  const restartPolicy = spec.restartPolicy === undefined ? 'Always' : v.str(spec.restartPolicy, `${path}.restartPolicy`);
  const containers = v.objs(spec.containers, `${path}.containers`);
  validateContainers(v, containers, volumes, `${path}.containers`);
  validateInitContainers(v, v.objs(spec.initContainers, `${path}.initContainers`), containers, volumes, `${path}.initContainers`);
  if (restartPolicy !== undefined) {
    if (restartPolicy === '') v.add(required(`${path}.restartPolicy`));
    else if (!RESTART_POLICIES.includes(restartPolicy)) v.add(notSupported(`${path}.restartPolicy`, restartPolicy, RESTART_POLICIES));
  }
  const dnsPolicy = spec.dnsPolicy === undefined ? 'ClusterFirst' : v.str(spec.dnsPolicy, `${path}.dnsPolicy`);
  if (dnsPolicy !== undefined) {
    if (dnsPolicy === '') v.add(required(`${path}.dnsPolicy`));
    else if (!DNS_POLICIES.includes(dnsPolicy)) v.add(notSupported(`${path}.dnsPolicy`, dnsPolicy, DNS_POLICIES));
  }
  v.add(...validateLabels(spec.nodeSelector, `${path}.nodeSelector`));
  v.objs(spec.imagePullSecrets, `${path}.imagePullSecrets`).forEach((s, i) => {
    if (!v.str(s.name, `${path}.imagePullSecrets[${i}].name`)) v.add(required(`${path}.imagePullSecrets[${i}].name`));
  });
  const sa = v.str(spec.serviceAccountName, `${path}.serviceAccountName`);
  if (sa) for (const msg of isDNS1123Subdomain(sa)) v.add(invalidValue(`${path}.serviceAccountName`, sa, msg));
  const node = v.str(spec.nodeName, `${path}.nodeName`);
  if (node) for (const msg of isDNS1123Subdomain(node)) v.add(invalidValue(`${path}.nodeName`, node, msg));
  const ads = v.int(spec.activeDeadlineSeconds, `${path}.activeDeadlineSeconds`);
  if (ads !== undefined && (ads < 1 || ads > 2147483647)) {
    v.add(invalidValue(`${path}.activeDeadlineSeconds`, ads, 'must be between 1 and 2147483647, inclusive'));
  }
  const hostname = v.str(spec.hostname, `${path}.hostname`);
  if (hostname) dns1123Label(v, hostname, `${path}.hostname`);
  const subdomain = v.str(spec.subdomain, `${path}.subdomain`);
  if (subdomain) dns1123Label(v, subdomain, `${path}.subdomain`);
  validateTolerations(v, spec.tolerations, `${path}.tolerations`);
}

/** ValidateVolumes: the names of the volumes that validated, for volumeMounts to refer to. */
function validateVolumes(v: Causes, list: unknown, path: string): Set<string> {
  const names = new Set<string>();
  v.objs(list, path).forEach((vol, i) => {
    const p = `${path}[${i}]`;
    const errs = new Causes();
    validateVolumeSource(errs, vol, p);
    const name = errs.str(vol.name, `${p}.name`) ?? '';
    if (name === '') errs.add(required(`${p}.name`));
    else dns1123Label(errs, name, `${p}.name`);
    if (names.has(name)) errs.add(duplicate(`${p}.name`, name));
    // Only a volume without errors can be mounted (kube adds it to the map only then).
    if (errs.all.length === 0) names.add(name);
    else v.add(...errs.all);
  });
  return names;
}

function validateVolumeSource(v: Causes, vol: Obj, path: string): void {
  let count = 0;
  for (const source of VOLUME_SOURCES) {
    if (vol[source] === undefined || vol[source] === null) continue;
    if (count > 0) {
      v.add(forbidden(`${path}.${source}`, 'may not specify more than 1 volume type'));
      continue;
    }
    count++;
    const s = v.obj(vol[source], `${path}.${source}`) ?? {};
    const p = `${path}.${source}`;
    switch (source) {
      case 'hostPath':
        if (!v.str(s.path, `${p}.path`)) v.add(required(`${p}.path`));
        break;
      case 'secret':
        if (!v.str(s.secretName, `${p}.secretName`)) v.add(required(`${p}.secretName`));
        break;
      case 'configMap':
        if (!v.str(s.name, `${p}.name`)) v.add(required(`${p}.name`));
        break;
      case 'persistentVolumeClaim':
        if (!v.str(s.claimName, `${p}.claimName`)) v.add(required(`${p}.claimName`));
        break;
      case 'emptyDir': {
        if (s.sizeLimit !== undefined && s.sizeLimit !== null) {
          const q = parseQuantity(s.sizeLimit);
          if (typeof q === 'string') v.add(invalidValue(`${p}.sizeLimit`, s.sizeLimit, q));
          else if (q.mantissa <= 0n) v.add(forbidden(`${p}.sizeLimit`, 'SizeLimit field must be a valid resource quantity'));
        }
        const medium = v.str(s.medium, `${p}.medium`);
        if (medium !== undefined && medium !== '' && medium !== 'Memory' && !medium.startsWith('HugePages')) {
          v.add(notSupported(`${p}.medium`, medium, ['', 'Memory', 'HugePages']));
        }
        break;
      }
    }
  }
  if (count === 0) v.add(required(path, 'must specify a volume type'));
}

function validateContainers(v: Causes, containers: Obj[], volumes: Set<string>, path: string): void {
  if (containers.length === 0) {
    v.add(required(path));
    return;
  }
  const names = new Set<string>();
  containers.forEach((c, i) => {
    const p = `${path}[${i}]`;
    const name = validateContainerCommon(v, c, volumes, p);
    if (names.has(name)) v.add(duplicate(`${p}.name`, name));
    else names.add(name);
    if (c.lifecycle !== undefined && c.lifecycle !== null) validateLifecycle(v, c.lifecycle, `${p}.lifecycle`);
    validateProbe(v, c.livenessProbe, `${p}.livenessProbe`, 'liveness');
    validateProbe(v, c.readinessProbe, `${p}.readinessProbe`, 'readiness');
    validateProbe(v, c.startupProbe, `${p}.startupProbe`, 'startup');
    if (c.restartPolicy !== undefined && c.restartPolicy !== null) {
      v.add(forbidden(`${p}.restartPolicy`, 'may not be set for non-init containers'));
    }
  });
  checkHostPorts(v, containers, path);
}

function validateInitContainers(v: Causes, inits: Obj[], regular: Obj[], volumes: Set<string>, path: string): void {
  const names = new Set<string>(regular.map((c) => (typeof c.name === 'string' ? c.name : '')));
  inits.forEach((c, i) => {
    const p = `${path}[${i}]`;
    const name = validateContainerCommon(v, c, volumes, p);
    let restartAlways = false;
    const policy = v.str(c.restartPolicy, `${p}.restartPolicy`);
    if (policy !== undefined) {
      if (policy !== 'Always') v.add(notSupported(`${p}.restartPolicy`, policy, ['Always']));
      restartAlways = policy === 'Always';
    }
    if (names.has(name)) v.add(duplicate(`${p}.name`, name));
    else if (name) names.add(name);
    checkHostPorts(v, [c], path, i);
    if (restartAlways) {
      if (c.lifecycle !== undefined && c.lifecycle !== null) validateLifecycle(v, c.lifecycle, `${p}.lifecycle`);
      validateProbe(v, c.livenessProbe, `${p}.livenessProbe`, 'liveness');
      validateProbe(v, c.readinessProbe, `${p}.readinessProbe`, 'readiness');
      validateProbe(v, c.startupProbe, `${p}.startupProbe`, 'startup');
    } else {
      for (const field of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe']) {
        if (c[field] !== undefined && c[field] !== null) v.add(forbidden(`${p}.${field}`, NOT_ALWAYS_INIT));
      }
    }
  });
}

/** validateContainerCommon; returns the container's name for the uniqueness checks. */
function validateContainerCommon(v: Causes, c: Obj, volumes: Set<string>, path: string): string {
  const name = v.str(c.name, `${path}.name`) ?? '';
  if (name === '') v.add(required(`${path}.name`));
  else dns1123Label(v, name, `${path}.name`);
  if (!v.str(c.image, `${path}.image`)) v.add(required(`${path}.image`));
  const tmp = c.terminationMessagePolicy === undefined ? 'File' : v.str(c.terminationMessagePolicy, `${path}.terminationMessagePolicy`);
  if (tmp === '') v.add(required(`${path}.terminationMessagePolicy`));
  else if (tmp !== undefined && !TERMINATION_MESSAGE_POLICIES.includes(tmp)) {
    v.add(notSupported(`${path}.terminationMessagePolicy`, tmp, TERMINATION_MESSAGE_POLICIES));
  }
  validateContainerPorts(v, c.ports, `${path}.ports`);
  validateEnv(v, c.env, `${path}.env`);
  validateEnvFrom(v, c.envFrom, `${path}.envFrom`);
  validateVolumeMounts(v, c.volumeMounts, volumes, `${path}.volumeMounts`);
  const pull = c.imagePullPolicy === undefined ? 'IfNotPresent' : v.str(c.imagePullPolicy, `${path}.imagePullPolicy`);
  if (pull === '') v.add(required(`${path}.imagePullPolicy`));
  else if (pull !== undefined && !PULL_POLICIES.includes(pull)) v.add(notSupported(`${path}.imagePullPolicy`, pull, PULL_POLICIES));
  validateResources(v, v.obj(c.resources, `${path}.resources`), `${path}.resources`);
  return name;
}

function validateContainerPorts(v: Causes, list: unknown, path: string): void {
  const names = new Set<string>();
  v.objs(list, path).forEach((port, i) => {
    const p = `${path}[${i}]`;
    const name = v.str(port.name, `${p}.name`);
    if (name) {
      const msgs = portNameMessages(name);
      if (msgs.length) for (const m of msgs) v.add(invalidValue(`${p}.name`, name, m));
      else if (names.has(name)) v.add(duplicate(`${p}.name`, name));
      else names.add(name);
    }
    const cp = v.int(port.containerPort, `${p}.containerPort`);
    if (!cp) {
      if (port.containerPort === undefined || port.containerPort === null || cp === 0) v.add(required(`${p}.containerPort`));
    } else {
      for (const m of portNumMessages(cp)) v.add(invalidValue(`${p}.containerPort`, cp, m));
    }
    const hp = v.int(port.hostPort, `${p}.hostPort`);
    if (hp) for (const m of portNumMessages(hp)) v.add(invalidValue(`${p}.hostPort`, hp, m));
    const protocol = port.protocol === undefined ? 'TCP' : v.str(port.protocol, `${p}.protocol`);
    if (protocol === '') v.add(required(`${p}.protocol`));
    else if (protocol !== undefined && !(PROTOCOLS as readonly string[]).includes(protocol)) {
      v.add(notSupported(`${p}.protocol`, protocol, PROTOCOLS));
    }
  });
}

/** AccumulateUniqueHostPorts: `hostIP/protocol/hostPort` must be unique across the given containers. */
function checkHostPorts(v: Causes, containers: Obj[], path: string, offset = 0): void {
  const seen = new Set<string>();
  containers.forEach((c, ci) => {
    if (!Array.isArray(c.ports)) return;
    c.ports.forEach((port: unknown, pi: number) => {
      if (typeof port !== 'object' || port === null) return;
      const pt = port as Obj;
      if (typeof pt.hostPort !== 'number' || pt.hostPort === 0) return;
      const key = `${typeof pt.hostIP === 'string' ? pt.hostIP : ''}/${typeof pt.protocol === 'string' ? pt.protocol : 'TCP'}/${pt.hostPort}`;
      if (seen.has(key)) v.add(duplicate(`${path}[${ci + offset}].ports[${pi}].hostPort`, key));
      else seen.add(key);
    });
  });
}

const RELAXED_ENV_NAME = "a valid environment variable name must consist only of printable ASCII characters other than '='";

/**
 * ValidateEnv. kube-apiserver 1.32 has RelaxedEnvironmentVariableValidation on by default (beta), so a
 * name may be any printable ASCII other than '=' (IsRelaxedEnvVarName), not only C-identifier-like.
 */
function validateEnv(v: Causes, list: unknown, path: string): void {
  v.objs(list, path).forEach((ev, i) => {
    const p = `${path}[${i}]`;
    const name = v.str(ev.name, `${p}.name`) ?? '';
    if (name === '') {
      v.add(required(`${p}.name`));
      v.add(invalidValue(`${p}.name`, name, 'environment variable name must be non-empty'));
    } else if (!/^[\x20-\x3c\x3e-\x7e]*$/.test(name)) {
      v.add(invalidValue(`${p}.name`, name, RELAXED_ENV_NAME));
    }
    v.str(ev.value, `${p}.value`);
    const from = v.obj(ev.valueFrom, `${p}.valueFrom`);
    if (from) validateEnvVarValueFrom(v, ev, from, `${p}.valueFrom`);
  });
}

function validateEnvVarValueFrom(v: Causes, ev: Obj, from: Obj, path: string): void {
  let count = 0;
  for (const source of ['fieldRef', 'resourceFieldRef', 'configMapKeyRef', 'secretKeyRef']) {
    const s = v.obj(from[source], `${path}.${source}`);
    if (!s) continue;
    count++;
    const p = `${path}.${source}`;
    if (source === 'fieldRef') {
      if (!v.str(s.fieldPath, `${p}.fieldPath`)) v.add(required(`${p}.fieldPath`));
    } else if (source === 'resourceFieldRef') {
      if (!v.str(s.resource, `${p}.resource`)) v.add(required(`${p}.resource`));
    } else {
      // validateConfigMapKeySelector / validateSecretKeySelector: the name is checked as a subdomain
      // (so an empty one is Invalid, not Required), then the key.
      const name = v.str(s.name, `${p}.name`) ?? '';
      for (const m of isDNS1123Subdomain(name)) v.add(invalidValue(`${p}.name`, name, m));
      const key = v.str(s.key, `${p}.key`) ?? '';
      if (key === '') v.add(required(`${p}.key`));
      else for (const m of configKeyMessages(key)) v.add(invalidValue(`${p}.key`, key, m));
    }
  }
  if (count === 0) v.add(invalidValue(path, '', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'));
  else if (typeof ev.value === 'string' && ev.value !== '') v.add(invalidValue(path, '', 'may not be specified when `value` is not empty'));
  else if (count > 1) v.add(invalidValue(path, '', 'may not have more than one field specified at a time'));
}

function validateEnvFrom(v: Causes, list: unknown, path: string): void {
  v.objs(list, path).forEach((src, i) => {
    const p = `${path}[${i}]`;
    const prefix = v.str(src.prefix, `${p}.prefix`);
    if (prefix && !/^[\x20-\x3c\x3e-\x7e]*$/.test(prefix)) v.add(invalidValue(`${p}.prefix`, prefix, RELAXED_ENV_NAME));
    let count = 0;
    for (const source of ['configMapRef', 'secretRef']) {
      const s = v.obj(src[source], `${p}.${source}`);
      if (!s) continue;
      count++;
      const name = v.str(s.name, `${p}.${source}.name`) ?? '';
      if (name === '') v.add(required(`${p}.${source}.name`));
      else for (const m of isDNS1123Subdomain(name)) v.add(invalidValue(`${p}.${source}.name`, name, m));
    }
    if (count === 0) v.add(invalidValue(p, '', 'must specify one of: `configMapRef` or `secretRef`'));
    else if (count > 1) v.add(invalidValue(p, '', 'may not have more than one field specified at a time'));
  });
}

const CONFIG_KEY_ERROR = regexError(
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.'", '[-._a-zA-Z0-9]+',
  'key.name', 'KEY_NAME', 'key-name',
);

/** IsConfigMapKey: the rule for ConfigMap and Secret keys. */
export function configKeyMessages(key: string): string[] {
  const errs: string[] = [];
  if (key.length > 253) errs.push('must be no more than 253 characters');
  if (!/^[-._a-zA-Z0-9]+$/.test(key)) errs.push(CONFIG_KEY_ERROR);
  if (key === '.') errs.push("must not be '.'");
  else if (key === '..') errs.push("must not be '..'");
  else if (key.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

function validateVolumeMounts(v: Causes, list: unknown, volumes: Set<string>, path: string): void {
  const mountPoints = new Set<string>();
  v.objs(list, path).forEach((m, i) => {
    const p = `${path}[${i}]`;
    const name = v.str(m.name, `${p}.name`) ?? '';
    if (name === '') v.add(required(`${p}.name`));
    if (!volumes.has(name)) v.add(notFound(`${p}.name`, name));
    const mountPath = v.str(m.mountPath, `${p}.mountPath`) ?? '';
    if (mountPath === '') v.add(required(`${p}.mountPath`));
    if (mountPoints.has(mountPath)) v.add(invalidValue(`${p}.mountPath`, mountPath, 'must be unique'));
    mountPoints.add(mountPath);
    const subPath = v.str(m.subPath, `${p}.subPath`);
    if (subPath) validateLocalDescendingPath(v, subPath, `${path}.subPath`);
  });
}

/** validateLocalDescendingPath: relative, and no '..' element. */
function validateLocalDescendingPath(v: Causes, target: string, path: string): void {
  if (target.startsWith('/')) v.add(invalidValue(path, target, 'must be a relative path'));
  if (target.split(/[\\/]/).includes('..')) v.add(invalidValue(path, target, "must not contain '..'"));
}

const STANDARD_CONTAINER_RESOURCES = new Set(['cpu', 'memory', 'ephemeral-storage']);

// helper.IsNativeResource / IsExtendedResourceName / IsOvercommitAllowed (pkg/apis/core/helper).
const isNative = (name: string) => !name.includes('/') || name.includes('kubernetes.io/');
const isExtended = (name: string) =>
  !isNative(name) && !name.startsWith('requests.') && labelKeyMessages(`requests.${name}`).length === 0;
const isHugePages = (name: string) => name.startsWith('hugepages-');
const overcommitAllowed = (name: string) => isNative(name) && !isHugePages(name);

/** ValidateResourceRequirements: names, non-negative quantities, requests ≤ limits. */
function validateResources(v: Causes, res: Obj | undefined, path: string): void {
  if (!res) return;
  const limits = new Map<string, Quantity>();
  const limitsPath = `${path}.limits`;
  for (const [name, raw] of entries(v.obj(res.limits, limitsPath))) {
    const q = resourceQuantity(v, name, raw, `${limitsPath}[${name}]`);
    if (q) limits.set(name, q);
  }
  const requestsPath = `${path}.requests`;
  for (const [name, raw] of entries(v.obj(res.requests, requestsPath))) {
    const q = resourceQuantity(v, name, raw, `${requestsPath}[${name}]`);
    if (!q) continue;
    const limit = limits.get(name);
    const overcommit = overcommitAllowed(name);
    if (limit) {
      if (!overcommit && compareQuantity(q, limit) !== 0) {
        v.add(invalidValue(requestsPath, formatQuantity(q), `must be equal to ${name} limit of ${formatQuantity(limit)}`));
      } else if (compareQuantity(q, limit) > 0) {
        v.add(invalidValue(requestsPath, formatQuantity(q), `must be less than or equal to ${name} limit of ${formatQuantity(limit)}`));
      }
    } else if (!overcommit) {
      v.add(required(limitsPath, 'Limit must be set for non overcommitable resources'));
    }
  }
}

/** validateContainerResourceName + ValidateResourceQuantityValue; the parsed quantity when usable. */
function resourceQuantity(v: Causes, name: string, raw: unknown, path: string): Quantity | undefined {
  for (const msg of labelKeyMessages(name)) v.add(invalidValue(path, name, msg));
  if (!name.includes('/')) {
    if (!STANDARD_CONTAINER_RESOURCES.has(name) && !isHugePages(name)) {
      v.add(invalidValue(path, name, 'must be a standard resource for containers'));
    }
  } else if (!isNative(name) && !isExtended(name)) {
    v.add(invalidValue(path, name, "doesn't follow extended resource name standard"));
  }
  const q = parseQuantity(raw);
  if (typeof q === 'string') {
    v.add(invalidValue(path, raw, q));
    return undefined;
  }
  if (isNegative(q)) v.add(invalidValue(path, formatQuantity(q), 'must be greater than or equal to 0'));
  if (isExtended(name) && !isWhole(q)) v.add(invalidValue(path, formatQuantity(q), 'must be an integer'));
  return q;
}

const PROBE_DEFAULTS: Record<string, number> = { timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3, initialDelaySeconds: 0 };

function validateProbe(v: Causes, raw: unknown, path: string, kind: 'liveness' | 'readiness' | 'startup'): void {
  const probe = v.obj(raw, path);
  if (!probe) return;
  validateHandler(v, probe, path, ['exec', 'httpGet', 'tcpSocket', 'grpc']);
  const n: Record<string, number | undefined> = {};
  for (const field of ['initialDelaySeconds', 'timeoutSeconds', 'periodSeconds', 'successThreshold', 'failureThreshold']) {
    n[field] = probe[field] === undefined ? PROBE_DEFAULTS[field] : v.int(probe[field], `${path}.${field}`);
    if (n[field] !== undefined && n[field]! < 0) v.add(invalidValue(`${path}.${field}`, n[field], 'must be greater than or equal to 0'));
  }
  const tgps = v.int(probe.terminationGracePeriodSeconds, `${path}.terminationGracePeriodSeconds`);
  if (tgps !== undefined && tgps <= 0) v.add(invalidValue(`${path}.terminationGracePeriodSeconds`, tgps, 'must be greater than 0'));
  if ((kind === 'liveness' || kind === 'startup') && n.successThreshold !== undefined && n.successThreshold !== 1) {
    v.add(invalidValue(`${path}.successThreshold`, n.successThreshold, 'must be 1'));
  }
  if (kind === 'readiness' && tgps !== undefined) {
    v.add(invalidValue(`${path}.terminationGracePeriodSeconds`, tgps, 'must not be set for readinessProbes'));
  }
}

function validateLifecycle(v: Causes, raw: unknown, path: string): void {
  const lc = v.obj(raw, path);
  if (!lc) return;
  for (const hook of ['postStart', 'preStop']) {
    const h = v.obj(lc[hook], `${path}.${hook}`);
    if (h) validateHandler(v, h, `${path}.${hook}`, ['exec', 'httpGet', 'tcpSocket', 'sleep']);
  }
}

/** validateHandler: exactly one handler type, each checked for its required parts. */
function validateHandler(v: Causes, h: Obj, path: string, kinds: string[]): void {
  let count = 0;
  for (const kind of kinds) {
    if (h[kind] === undefined || h[kind] === null) continue;
    const p = `${path}.${kind}`;
    if (count > 0) {
      v.add(forbidden(p, 'may not specify more than 1 handler type'));
      continue;
    }
    count++;
    const a = v.obj(h[kind], p) ?? {};
    if (kind === 'exec') {
      if (v.strs(a.command, `${p}.command`).length === 0) v.add(required(`${p}.command`));
    } else if (kind === 'httpGet') {
      if (a.path !== undefined && v.str(a.path, `${p}.path`) === '') v.add(required(`${p}.path`));
      const port = a.port === undefined ? 0 : v.intOrString(a.port, `${p}.port`);
      if (port !== undefined) v.add(...portNumOrName(port, `${p}.port`));
      const scheme = a.scheme === undefined ? 'HTTP' : v.str(a.scheme, `${p}.scheme`);
      if (scheme !== undefined && scheme !== 'HTTP' && scheme !== 'HTTPS') v.add(notSupported(`${p}.scheme`, scheme, ['HTTP', 'HTTPS']));
      v.objs(a.httpHeaders, `${p}.httpHeaders`).forEach((hd, i) => {
        const name = v.str(hd.name, `${p}.httpHeaders[${i}].name`) ?? '';
        if (!/^[-A-Za-z0-9]+$/.test(name)) {
          v.add(invalidValue(`${p}.httpHeaders`, name, regexError("a valid HTTP header must consist of alphanumeric characters or '-'", '[-A-Za-z0-9]+', 'X-Header-Name')));
        }
      });
    } else if (kind === 'tcpSocket') {
      const port = a.port === undefined ? 0 : v.intOrString(a.port, `${p}.port`);
      if (port !== undefined) v.add(...portNumOrName(port, `${p}.port`));
    } else if (kind === 'grpc') {
      const port = v.int(a.port, `${p}.port`) ?? 0;
      for (const m of portNumMessages(port)) v.add(invalidValue(`${p}.port`, port, m));
    } else if (kind === 'sleep') {
      const secs = v.int(a.seconds, `${p}.seconds`) ?? 0;
      if (secs <= 0) v.add(invalidValue(`${p}.seconds`, secs, 'must be greater than 0 and less than terminationGracePeriodSeconds (30). Enable AllowPodLifecycleSleepActionZeroValue feature gate for zero sleep.'));
    }
  }
  if (count === 0) v.add(required(path, 'must specify a handler type'));
}

const TOLERATION_OPERATORS = ['Equal', 'Exists'];
const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** ValidateTolerations. */
function validateTolerations(v: Causes, list: unknown, path: string): void {
  v.objs(list, path).forEach((t, i) => {
    const p = `${path}[${i}]`;
    const key = v.str(t.key, `${p}.key`) ?? '';
    if (key) for (const m of labelKeyMessages(key)) v.add(invalidValue(`${p}.key`, key, m));
    const operator = v.str(t.operator, `${p}.operator`) ?? '';
    const value = v.str(t.value, `${p}.value`) ?? '';
    const effect = v.str(t.effect, `${p}.effect`) ?? '';
    const seconds = v.int(t.tolerationSeconds, `${p}.tolerationSeconds`);
    if (key === '' && operator !== 'Exists') {
      v.add(invalidValue(`${p}.operator`, operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (seconds !== undefined && effect !== 'NoExecute') {
      v.add(invalidValue(`${p}.effect`, effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    if (operator === '' || operator === 'Equal') {
      const errs = labelValueMessages(value);
      if (errs.length) v.add(invalidValue(`${p}.operator`, value, errs.join(';')));
    } else if (operator === 'Exists') {
      if (value !== '') {
        const secs = seconds === undefined ? '(*int64)(nil)' : `(*int64)(${seconds})`;
        const shown = new GoLiteral(
          `core.Toleration{Key:${goQuote(key)}, Operator:${goQuote(operator)}, Value:${goQuote(value)}, Effect:${goQuote(effect)}, TolerationSeconds:${secs}}`,
        );
        v.add(invalidValue(`${p}.operator`, shown, "value must be empty when `operator` is 'Exists'"));
      }
    } else {
      v.add(notSupported(`${p}.operator`, operator, TOLERATION_OPERATORS));
    }
    if (effect !== '' && !TAINT_EFFECTS.includes(effect)) v.add(notSupported(`${p}.effect`, effect, TAINT_EFFECTS));
  });
}
