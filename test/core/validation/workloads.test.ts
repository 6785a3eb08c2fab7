// Workload validation (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job): kube-apiserver's exact causes.
import { describe, expect, it } from 'vitest';
import { deployment, daemonSet, job, replicaSet, statefulSet } from './manifests';
import { causesOf, forb, inv, mutated, req, unsup, type Any } from './helpers';

const MISMATCH = '`selector` does not match template `labels`';
const NIL_SELECTOR = 'v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}';

type Case = [string, () => Any, (o: Any) => void, object[]];

const cases: Case[] = [
  ['deployment: no selector (the nil selector matches nothing)', deployment, (d) => { delete d.spec.selector; }, [
    req('spec.selector'),
    inv('spec.template.metadata.labels', 'map[string]string{"app":"web", "tier":"frontend"}', MISMATCH),
  ]],
  ['deployment: empty selector', deployment, (d) => { d.spec.selector = {}; }, [
    inv('spec.selector', NIL_SELECTOR, 'empty selector is invalid for deployment'),
  ]],
  ['deployment: selector does not match the template labels', deployment, (d) => { d.spec.selector = { matchLabels: { app: 'api' } }; }, [
    inv('spec.template.metadata.labels', 'map[string]string{"app":"web", "tier":"frontend"}', MISMATCH),
  ]],
  ['deployment: template without labels', deployment, (d) => { delete d.spec.template.metadata; }, [
    inv('spec.template.metadata.labels', 'map[string]string(nil)', MISMATCH),
  ]],
  ['deployment: bad selector expressions', deployment, (d) => {
    d.spec.selector = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In' }, { key: 'x', operator: 'Exists', values: ['a'] }, { key: 'y', operator: 'Near' }] };
  }, [
    req('spec.selector.matchExpressions[0].values', "must be specified when `operator` is 'In' or 'NotIn'"),
    forb('spec.selector.matchExpressions[1].values', "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
    inv('spec.selector.matchExpressions[2].operator', '"Near"', 'not a valid selector operator'),
  ]],
  ['deployment: negative replicas', deployment, (d) => { d.spec.replicas = -1; }, [
    inv('spec.replicas', '-1', 'must be greater than or equal to 0'),
  ]],
  ['deployment: template restartPolicy must be Always', deployment, (d) => { d.spec.template.spec.restartPolicy = 'OnFailure'; }, [
    unsup('spec.template.spec.restartPolicy', '"OnFailure"', ['Always']),
  ]],
  ['deployment: pod template errors carry the template path', deployment, (d) => { d.spec.template.spec.containers[1].image = ''; }, [
    req('spec.template.spec.containers[1].image'),
  ]],
  ['deployment: maxSurge and maxUnavailable both zero', deployment, (d) => { d.spec.strategy.rollingUpdate = { maxSurge: 0, maxUnavailable: '0%' }; }, [
    inv('spec.strategy.rollingUpdate.maxUnavailable', 'intstr.IntOrString{Type:1, IntVal:0, StrVal:"0%"}', 'may not be 0 when `maxSurge` is 0'),
  ]],
  ['deployment: bad percentages', deployment, (d) => { d.spec.strategy.rollingUpdate = { maxSurge: 'many', maxUnavailable: '150%' }; }, [
    inv('spec.strategy.rollingUpdate.maxSurge', 'intstr.IntOrString{Type:1, IntVal:0, StrVal:"many"}',
      "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')"),
    inv('spec.strategy.rollingUpdate.maxUnavailable', 'intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}', 'must not be greater than 100%'),
  ]],
  ['deployment: Recreate with rollingUpdate', deployment, (d) => { d.spec.strategy.type = 'Recreate'; }, [
    forb('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'"),
  ]],
  ['deployment: unknown strategy type', deployment, (d) => { d.spec.strategy = { type: 'BlueGreen' }; }, [
    unsup('spec.strategy', 'apps.DeploymentStrategy{Type:"BlueGreen", RollingUpdate:(*apps.RollingUpdateDeployment)(nil)}', ['Recreate', 'RollingUpdate']),
  ]],
  ['deployment: progressDeadlineSeconds not above minReadySeconds', deployment, (d) => { d.spec.minReadySeconds = 10; d.spec.progressDeadlineSeconds = 10; }, [
    inv('spec.progressDeadlineSeconds', '10', 'must be greater than minReadySeconds'),
  ]],
  ['replicaset: empty selector says "deployment", as kube does', replicaSet, (r) => { r.spec.selector = { matchExpressions: [] }; }, [
    inv('spec.selector', 'v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}', 'empty selector is invalid for deployment'),
  ]],
  ['replicaset: expression selector not matching', replicaSet, (r) => { r.spec.template.metadata.labels.tier = 'backend'; }, [
    inv('spec.template.metadata.labels', 'map[string]string{"tier":"backend"}', MISMATCH),
  ]],
  ['replicaset: activeDeadlineSeconds in the template', replicaSet, (r) => { r.spec.template.spec.activeDeadlineSeconds = 5; }, [
    forb('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in ReplicaSet is not Supported'),
  ]],
  ['statefulset: podManagementPolicy and updateStrategy values', statefulSet, (s) => {
    s.spec.podManagementPolicy = 'Random'; s.spec.updateStrategy = { type: 'Sometimes' };
  }, [
    inv('spec.podManagementPolicy', '"Random"', "must be 'OrderedReady' or 'Parallel'"),
    inv('spec.updateStrategy', 'apps.StatefulSetUpdateStrategy{Type:"Sometimes", RollingUpdate:(*apps.RollingUpdateStatefulSetStrategy)(nil)}', "must be 'RollingUpdate' or 'OnDelete'"),
  ]],
  ['statefulset: OnDelete with rollingUpdate, negative partition elsewhere', statefulSet, (s) => {
    s.spec.updateStrategy = { type: 'OnDelete', rollingUpdate: { partition: 2 } };
  }, [
    inv('spec.updateStrategy.rollingUpdate', 'apps.RollingUpdateStatefulSetStrategy{Partition:2, MaxUnavailable:(*intstr.IntOrString)(nil)}', "only allowed for updateStrategy 'RollingUpdate'"),
  ]],
  ['statefulset: negative partition, zero maxUnavailable', statefulSet, (s) => {
    s.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: -1, maxUnavailable: 0 } };
  }, [
    inv('spec.updateStrategy.rollingUpdate.partition', '-1', 'must be greater than or equal to 0'),
    inv('spec.updateStrategy.rollingUpdate.maxUnavailable', 'intstr.IntOrString{Type:0, IntVal:0, StrVal:""}', 'cannot be 0'),
  ]],
  ['statefulset: no selector, restartPolicy Never', statefulSet, (s) => { delete s.spec.selector; s.spec.template.spec.restartPolicy = 'Never'; }, [
    req('spec.selector'),
    inv('spec.template.metadata.labels', 'map[string]string{"app":"db"}', MISMATCH),
    unsup('spec.template.spec.restartPolicy', '"Never"', ['Always']),
  ]],
  ['statefulset: kube does not validate the pod spec of a StatefulSet template', statefulSet, (s) => { s.spec.template.spec.containers = []; }, []],
  ['statefulset: claim template names', statefulSet, (s) => { s.spec.volumeClaimTemplates[0].metadata.name = 'Data'; }, [
    inv('spec.volumeClaimTemplates[0].metadata.name', '"Data"', "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"),
  ]],
  ['daemonset: no selector is only a mismatch', daemonSet, (d) => { delete d.spec.selector; }, [
    inv('spec.template.metadata.labels', 'map[string]string{"name":"agent"}', MISMATCH),
  ]],
  ['daemonset: empty selector', daemonSet, (d) => { d.spec.selector = {}; }, [
    inv('spec.selector', NIL_SELECTOR, 'empty selector is invalid for daemonset'),
  ]],
  ['daemonset: both maxSurge and maxUnavailable set', daemonSet, (d) => {
    d.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } };
  }, [inv('spec.updateStrategy.rollingUpdate.maxSurge', 'intstr.IntOrString{Type:0, IntVal:1, StrVal:""}', 'may not be set when maxUnavailable is non-zero')]],
  ['daemonset: both zero', daemonSet, (d) => {
    d.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } };
  }, [req('spec.updateStrategy.rollingUpdate.maxUnavailable', 'cannot be 0 when maxSurge is 0')]],
  ['daemonset: unknown update strategy', daemonSet, (d) => { d.spec.updateStrategy = { type: 'Surge' }; }, [
    unsup('spec.updateStrategy', 'apps.DaemonSetUpdateStrategy{Type:"Surge", RollingUpdate:(*apps.RollingUpdateDaemonSet)(nil)}', ['RollingUpdate', 'OnDelete']),
  ]],
  ['job: restartPolicy defaulted to Always', job, (j) => { delete j.spec.template.spec.restartPolicy; }, [
    req('spec.template.spec.restartPolicy', 'valid values: "OnFailure", "Never"'),
  ]],
  ['job: restartPolicy Always', job, (j) => { j.spec.template.spec.restartPolicy = 'Always'; }, [
    req('spec.template.spec.restartPolicy', 'valid values: "OnFailure", "Never"'),
  ]],
  ['job: unknown restartPolicy', job, (j) => { j.spec.template.spec.restartPolicy = 'Twice'; }, [
    unsup('spec.template.spec.restartPolicy', '"Twice"', ['Always', 'OnFailure', 'Never']),
    unsup('spec.template.spec.restartPolicy', '"Twice"', ['OnFailure', 'Never']),
  ]],
  ['job: negative counts', job, (j) => { j.spec.parallelism = -1; j.spec.completions = -2; j.spec.backoffLimit = -3; j.spec.activeDeadlineSeconds = -4; }, [
    inv('spec.parallelism', '-1', 'must be greater than or equal to 0'),
    inv('spec.completions', '-2', 'must be greater than or equal to 0'),
    inv('spec.activeDeadlineSeconds', '-4', 'must be greater than or equal to 0'),
    inv('spec.backoffLimit', '-3', 'must be greater than or equal to 0'),
  ]],
  ['job: Indexed needs completions; unknown modes', job, (j) => { delete j.spec.completions; j.spec.completionMode = 'Indexed'; }, [
    req('spec.completions', 'when completion mode is Indexed'),
  ]],
  ['job: manual selector required and matched', job, (j) => { j.spec.manualSelector = true; }, [
    req('spec.selector'),
    inv('spec.template.metadata.labels', 'map[string]string(nil)', MISMATCH),
  ]],
  ['job: a given selector must match', job, (j) => { j.spec.selector = { matchLabels: { job: 'pi' } }; j.spec.template.metadata = { labels: { job: 'other' } }; }, [
    inv('spec.template.metadata.labels', 'map[string]string{"job":"other"}', MISMATCH),
  ]],
  ['job: containers required in the template', job, (j) => { j.spec.template.spec.containers = []; }, [
    req('spec.template.spec.containers'),
  ]],
];

describe('workload validation', () => {
  it.each(cases)('%s', (_name, make, change, expected) => {
    expect(causesOf(mutated(make, change))).toEqual(expected);
  });

  it('never throws on wrong types, reporting them instead', () => {
    const d = mutated(deployment, (x: Any) => { x.spec.replicas = '3'; x.spec.selector = 'app=web'; x.spec.template = []; x.spec.strategy = 7; });
    expect(causesOf(d)).toEqual([
      inv('spec.replicas', '"3"', 'must be of type integer'),
      inv('spec.selector', '"app=web"', 'must be of type object'),
      inv('spec.template', '[]string(nil)', 'must be of type object'),
      req('spec.template.spec.containers'),
      inv('spec.strategy', '7', 'must be of type object'),
    ]);
  });
});
