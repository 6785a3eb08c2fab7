// Pod and pod-template validation: each rule with kube-apiserver's exact cause list.
import { describe, expect, it } from 'vitest';
import { applyDefaults } from '../../../core/admission/defaults';
import type { KubeObject } from '../../../core/object-meta';
import * as manifests from './manifests';
import { causesOf, DNS_LABEL, dup, forb, inv, mutated, notFound, RANGE, req, unsup, type Any } from './helpers';

const pod = manifests.pod;
const c0 = 'spec.containers[0]';

describe('valid manifests', () => {
  it.each(Object.entries(manifests))('%s has no causes, before and after defaulting', (_name, make) => {
    const obj = make() as Any;
    expect(causesOf(obj)).toEqual([]);
    applyDefaults(obj as KubeObject);
    expect(causesOf(obj)).toEqual([]);
  });
});

type Case = [string, (p: Any) => void, object[]];

const cases: Case[] = [
  ['no containers', (p) => { p.spec.containers = []; }, [req('spec.containers')]],
  ['no spec at all', (p) => { delete p.spec; }, [req('spec.containers')]],
  ['a container without name and image', (p) => { p.spec.containers = [{}]; }, [req(`${c0}.name`), req(`${c0}.image`)]],
  ['a container name that is not a DNS label', (p) => { p.spec.containers[0].name = 'My_App'; }, [inv(`${c0}.name`, '"My_App"', DNS_LABEL)]],
  ['duplicate container names across init and regular containers', (p) => {
    p.spec.containers.push({ name: 'app', image: 'b' });
    p.spec.initContainers = [{ name: 'app', image: 'c' }];
  }, [dup('spec.containers[1].name', '"app"'), dup('spec.initContainers[0].name', '"app"')]],
  ['container ports out of range, duplicate and badly named', (p) => {
    p.spec.containers[0].ports = [
      { name: 'http', containerPort: 0 }, { name: 'http', containerPort: 70000, hostPort: -1 },
      { name: 'Bad--', containerPort: 80, protocol: 'ICMP' },
    ];
  }, [
    req(`${c0}.ports[0].containerPort`),
    dup(`${c0}.ports[1].name`, '"http"'),
    inv(`${c0}.ports[1].containerPort`, '70000', RANGE),
    inv(`${c0}.ports[1].hostPort`, '-1', RANGE),
    inv(`${c0}.ports[2].name`, '"Bad--"', 'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)'),
    inv(`${c0}.ports[2].name`, '"Bad--"', 'must contain consecutive hyphens'.replace('must', 'must not')),
    inv(`${c0}.ports[2].name`, '"Bad--"', 'must not begin or end with a hyphen'),
    unsup(`${c0}.ports[2].protocol`, '"ICMP"', ['SCTP', 'TCP', 'UDP']),
  ]],
  ['a port name of only digits, longer than 15', (p) => { p.spec.containers[0].ports = [{ name: '1234567890123456', containerPort: 1 }]; }, [
    inv(`${c0}.ports[0].name`, '"1234567890123456"', 'must be no more than 15 characters'),
    inv(`${c0}.ports[0].name`, '"1234567890123456"', 'must contain at least one letter (a-z)'),
  ]],
  ['the same host port twice', (p) => {
    p.spec.containers.push({ name: 'b', image: 'b', ports: [{ containerPort: 81, hostPort: 8080 }] });
    p.spec.containers[0].ports = [{ containerPort: 80, hostPort: 8080 }];
  }, [dup('spec.containers[1].ports[0].hostPort', '"/TCP/8080"')]],
  ['env var names: empty and with =', (p) => { p.spec.containers[0].env = [{ name: '' }, { name: 'A=B' }, { name: '1_STARTS_WITH_DIGIT' }]; }, [
    req(`${c0}.env[0].name`),
    inv(`${c0}.env[0].name`, '""', 'environment variable name must be non-empty'),
    inv(`${c0}.env[1].name`, '"A=B"', "a valid environment variable name must consist only of printable ASCII characters other than '='"),
  ]],
  ['valueFrom with no source, and with a value too', (p) => {
    p.spec.containers[0].env = [{ name: 'A', valueFrom: {} }, { name: 'B', value: 'x', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }];
  }, [
    inv(`${c0}.env[0].valueFrom`, '""', 'must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`'),
    inv(`${c0}.env[1].valueFrom`, '""', 'may not be specified when `value` is not empty'),
  ]],
  ['key selectors: name checked as a subdomain, then the key', (p) => {
    p.spec.containers[0].env = [{ name: 'A', valueFrom: { secretKeyRef: { name: '', key: 'a/b' } } }, { name: 'B', valueFrom: { configMapKeyRef: { name: 'cm' } } }];
  }, [
    inv(`${c0}.env[0].valueFrom.secretKeyRef.name`, '""', "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"),
    inv(`${c0}.env[0].valueFrom.secretKeyRef.key`, '"a/b"', "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"),
    req(`${c0}.env[1].valueFrom.configMapKeyRef.key`),
  ]],
  ['volume names: bad, duplicate, without a source, two sources', (p) => {
    p.spec.volumes = [
      { name: 'Data', emptyDir: {} }, { name: 'a', emptyDir: {} }, { name: 'a', emptyDir: {} },
      { name: 'none' }, { name: 'two', emptyDir: {}, hostPath: { path: '/x' } },
    ];
  }, [
    inv('spec.volumes[0].name', '"Data"', DNS_LABEL),
    dup('spec.volumes[2].name', '"a"'),
    req('spec.volumes[3]', 'must specify a volume type'),
    forb('spec.volumes[4].emptyDir', 'may not specify more than 1 volume type'),
  ]],
  ['volume sources missing their required names', (p) => {
    p.spec.volumes = [{ name: 'a', configMap: {} }, { name: 'b', secret: {} }, { name: 'c', persistentVolumeClaim: {} }, { name: 'd', hostPath: {} }];
  }, [
    req('spec.volumes[0].configMap.name'), req('spec.volumes[1].secret.secretName'),
    req('spec.volumes[2].persistentVolumeClaim.claimName'), req('spec.volumes[3].hostPath.path'),
  ]],
  ['volume mounts of unknown volumes, without path, twice at one path', (p) => {
    p.spec.volumes = [{ name: 'data', emptyDir: {} }];
    p.spec.containers[0].volumeMounts = [
      { name: 'missing', mountPath: '/a' }, { name: 'data' }, { name: 'data', mountPath: '/a' },
    ];
  }, [
    notFound(`${c0}.volumeMounts[0].name`, '"missing"'),
    req(`${c0}.volumeMounts[1].mountPath`),
    inv(`${c0}.volumeMounts[2].mountPath`, '"/a"', 'must be unique'),
  ]],
  ['a mount of a volume that is itself invalid', (p) => {
    p.spec.volumes = [{ name: 'Bad' , emptyDir: {} }];
    p.spec.containers[0].volumeMounts = [{ name: 'Bad', mountPath: '/a' }];
  }, [inv('spec.volumes[0].name', '"Bad"', DNS_LABEL), notFound(`${c0}.volumeMounts[0].name`, '"Bad"')]],
  ['requests above limits', (p) => {
    p.spec.containers[0].resources = { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1500m', memory: '2048Mi' } };
  }, [
    inv(`${c0}.resources.requests`, '"1500m"', 'must be less than or equal to cpu limit of 1'),
    inv(`${c0}.resources.requests`, '"2Gi"', 'must be less than or equal to memory limit of 1Gi'),
  ]],
  ['negative, malformed and non-standard quantities', (p) => {
    p.spec.containers[0].resources = { requests: { cpu: '-1', memory: 'lots', gpu: '1' } };
  }, [
    inv(`${c0}.resources.requests[cpu]`, '"-1"', 'must be greater than or equal to 0'),
    inv(`${c0}.resources.requests[memory]`, '"lots"', "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"),
    inv(`${c0}.resources.requests[gpu]`, '"gpu"', 'must be a standard resource for containers'),
  ]],
  ['an extended resource request without a limit', (p) => {
    p.spec.containers[0].resources = { requests: { 'nvidia.com/gpu': '1' } };
  }, [req(`${c0}.resources.limits`, 'Limit must be set for non overcommitable resources')]],
  ['extended resources: whole numbers, equal request and limit, a valid name', (p) => {
    p.spec.containers[0].resources = {
      limits: { 'example.com/gpu': '500m', 'example.com/fpga': '2' },
      requests: { 'example.com/fpga': '1', 'requests.example.com/x': '1' },
    };
  }, [
    inv(`${c0}.resources.limits[example.com/gpu]`, '"500m"', 'must be an integer'),
    inv(`${c0}.resources.requests`, '"1"', 'must be equal to example.com/fpga limit of 2'),
    inv(`${c0}.resources.requests[requests.example.com/x]`, '"requests.example.com/x"', "doesn't follow extended resource name standard"),
    req(`${c0}.resources.limits`, 'Limit must be set for non overcommitable resources'),
  ]],
  ['restartPolicy and dnsPolicy values', (p) => { p.spec.restartPolicy = 'Sometimes'; p.spec.dnsPolicy = 'Google'; }, [
    unsup('spec.restartPolicy', '"Sometimes"', ['Always', 'OnFailure', 'Never']),
    unsup('spec.dnsPolicy', '"Google"', ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None']),
  ]],
  ['imagePullPolicy value', (p) => { p.spec.containers[0].imagePullPolicy = 'Sometimes'; }, [
    unsup(`${c0}.imagePullPolicy`, '"Sometimes"', ['Always', 'IfNotPresent', 'Never']),
  ]],
  ['probes with no handler, two handlers, bad numbers', (p) => {
    p.spec.containers[0].livenessProbe = { periodSeconds: -1, successThreshold: 2 };
    p.spec.containers[0].readinessProbe = { exec: { command: ['true'] }, httpGet: { port: 80 }, terminationGracePeriodSeconds: 5 };
    p.spec.containers[0].startupProbe = { httpGet: { port: 0, scheme: 'FTP' } };
  }, [
    req(`${c0}.livenessProbe`, 'must specify a handler type'),
    inv(`${c0}.livenessProbe.periodSeconds`, '-1', 'must be greater than or equal to 0'),
    inv(`${c0}.livenessProbe.successThreshold`, '2', 'must be 1'),
    forb(`${c0}.readinessProbe.httpGet`, 'may not specify more than 1 handler type'),
    inv(`${c0}.readinessProbe.terminationGracePeriodSeconds`, '5', 'must not be set for readinessProbes'),
    inv(`${c0}.startupProbe.httpGet.port`, '0', RANGE),
    unsup(`${c0}.startupProbe.httpGet.scheme`, '"FTP"', ['HTTP', 'HTTPS']),
  ]],
  ['an exec probe without a command, a tcp probe with a bad port name', (p) => {
    p.spec.containers[0].livenessProbe = { exec: {} };
    p.spec.containers[0].readinessProbe = { tcpSocket: { port: 'HTTP' } };
  }, [
    req(`${c0}.livenessProbe.exec.command`),
    inv(`${c0}.readinessProbe.tcpSocket.port`, '"HTTP"', 'must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)'),
    inv(`${c0}.readinessProbe.tcpSocket.port`, '"HTTP"', 'must contain at least one letter (a-z)'),
  ]],
  ['probes on a plain init container', (p) => { p.spec.initContainers = [{ name: 'i', image: 'i', readinessProbe: { exec: { command: ['x'] } } }]; }, [
    forb('spec.initContainers[0].readinessProbe', 'may not be set for init containers without restartPolicy=Always'),
  ]],
  ['a sidecar (init container with restartPolicy Always) may have probes; other restart policies are rejected', (p) => {
    p.spec.initContainers = [
      { name: 's', image: 's', restartPolicy: 'Always', readinessProbe: { exec: { command: ['x'] } } },
      { name: 't', image: 't', restartPolicy: 'Never' },
    ];
    p.spec.containers[0].restartPolicy = 'Always';
  }, [
    forb(`${c0}.restartPolicy`, 'may not be set for non-init containers'),
    unsup('spec.initContainers[1].restartPolicy', '"Never"', ['Always']),
  ]],
  ['activeDeadlineSeconds, hostname, serviceAccountName', (p) => {
    p.spec.activeDeadlineSeconds = 0; p.spec.hostname = 'Host'; p.spec.serviceAccountName = 'Bad_SA';
  }, [
    inv('spec.serviceAccountName', '"Bad_SA"', "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"),
    inv('spec.activeDeadlineSeconds', '0', 'must be between 1 and 2147483647, inclusive'),
    inv('spec.hostname', '"Host"', DNS_LABEL),
  ]],
  ['tolerations', (p) => {
    p.spec.tolerations = [{ operator: 'Equal', value: 'x' }, { key: 'k', operator: 'Maybe', effect: 'NoWay' }, { key: 'k', tolerationSeconds: 5, effect: 'NoSchedule' }];
  }, [
    inv('spec.tolerations[0].operator', '"Equal"', 'operator must be Exists when `key` is empty, which means "match all values and all keys"'),
    unsup('spec.tolerations[1].operator', '"Maybe"', ['Equal', 'Exists']),
    unsup('spec.tolerations[1].effect', '"NoWay"', ['NoSchedule', 'PreferNoSchedule', 'NoExecute']),
    inv('spec.tolerations[2].effect', '"NoSchedule"', "effect must be 'NoExecute' when `tolerationSeconds` is set"),
  ]],
  ['image with surrounding whitespace (pods only)', (p) => { p.spec.containers[0].image = ' nginx'; }, [
    inv(`${c0}.image`, '" nginx"', 'must not have leading or trailing whitespace'),
  ]],
  ['ephemeral containers on create', (p) => { p.spec.ephemeralContainers = [{ name: 'debug', image: 'busybox' }]; }, [
    forb('spec.ephemeralContainers', 'cannot be set on create'),
  ]],
  ['wrong JSON types never throw: each is one Invalid cause', (p) => {
    p.spec.containers = [{ name: 5, image: ['x'], ports: 'http', env: [null, 'x'], resources: { limits: 'big' } }];
    p.spec.volumes = 'none';
    p.spec.nodeSelector = ['a'];
  }, [
    inv('spec.volumes', '"none"', 'must be of type array'),
    inv(`${c0}.name`, '5', 'must be of type string'),
    req(`${c0}.name`),
    inv(`${c0}.image`, '[]string{"x"}', 'must be of type string'),
    req(`${c0}.image`),
    inv(`${c0}.ports`, '"http"', 'must be of type array'),
    inv(`${c0}.env[1]`, '"x"', 'must be of type object'),
    req(`${c0}.env[0].name`),
    inv(`${c0}.env[0].name`, '""', 'environment variable name must be non-empty'),
    req(`${c0}.env[1].name`),
    inv(`${c0}.env[1].name`, '""', 'environment variable name must be non-empty'),
    inv(`${c0}.resources.limits`, '"big"', 'must be of type object'),
    inv('spec.nodeSelector', '[]string{"a"}', 'must be of type object'),
  ]],
];

describe('pod validation', () => {
  it.each(cases)('%s', (_name, change, expected) => {
    expect(causesOf(mutated(pod, change as (p: Any) => void))).toEqual(expected);
  });

  it('does not forbid ephemeral containers on update', () => {
    const p = mutated(pod, (x: Any) => { x.spec.ephemeralContainers = [{ name: 'debug', image: 'busybox' }]; });
    expect(causesOf(p, pod())).toEqual([]);
  });

  it('stays linear: a pod with 20,000 env vars and mounts validates quickly', () => {
    const p = mutated(pod, (x: Any) => {
      x.spec.containers[0].env = Array.from({ length: 20000 }, (_, i) => ({ name: `V${i}`, value: 'x' }));
      x.spec.volumes = Array.from({ length: 20000 }, (_, i) => ({ name: `v${i}`, emptyDir: {} }));
      x.spec.containers[0].volumeMounts = Array.from({ length: 20000 }, (_, i) => ({ name: `v${i}`, mountPath: `/m/${i}` }));
    });
    const start = performance.now();
    expect(causesOf(p)).toEqual([]);
    expect(performance.now() - start).toBeLessThan(2000);
  });
});

describe('mirror pods (ValidatePodSpecificAnnotations, ValidatePodSpecificAnnotationUpdates)', () => {
  const M = 'metadata.annotations[kubernetes.io/config.mirror]';
  const mirror = (hash = 'abc', nodeName = 'node-1') => mutated(pod, (p: Any) => {
    p.metadata.annotations = { ...p.metadata.annotations, 'kubernetes.io/config.mirror': hash };
    if (nodeName) p.spec.nodeName = nodeName;
  });
  const plain = () => mutated(pod, (p: Any) => { p.spec.nodeName = 'node-1'; });

  it('a mirror pod must be bound to a node when created', () => {
    expect(causesOf(mirror())).toEqual([]);
    expect(causesOf(mirror('abc', ''))).toEqual([inv(M, '"abc"', 'must set spec.nodeName if mirror pod annotation is set')]);
  });

  it('an update may not add, remove or change the mirror annotation, and may change others', () => {
    expect(causesOf(mirror(), plain())).toEqual([forb(M, 'may not add mirror pod annotation')]);
    expect(causesOf(plain(), mirror())).toEqual([forb(M, 'may not remove or update mirror pod annotation')]);
    expect(causesOf(mirror('def'), mirror('abc'))).toEqual([forb(M, 'may not remove or update mirror pod annotation')]);
    expect(causesOf(mutated(() => mirror(), (p: Any) => { p.metadata.annotations.other = 'x'; }), mirror())).toEqual([]);
    expect(causesOf(plain(), plain())).toEqual([]);
  });
});
