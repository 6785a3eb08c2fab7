// ReplicationController (core/v1): kube's defaulting of the map selector from the template's labels and
// ValidateReplicationControllerSpec's causes.
import { describe, expect, it } from 'vitest';
import { applyDefaults } from '../../../core/admission/defaults';
import type { KubeObject } from '../../../core/object-meta';
import { causesOf, forb, inv, req, unsup, type Any } from './helpers';

const MISMATCH = '`selector` does not match template `labels`';

const rc = (): Any => ({
  apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'rc1', namespace: 'default' },
  spec: { replicas: 2, template: { metadata: { labels: { app: 'rc1' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});

describe('ReplicationController', () => {
  it('defaults selector and labels from the template labels, replicas to 1', () => {
    const o = rc();
    delete o.spec.replicas;
    applyDefaults(o as KubeObject);
    expect(o.spec.selector).toEqual({ app: 'rc1' });
    expect(o.metadata.labels).toEqual({ app: 'rc1' });
    expect(o.spec.replicas).toBe(1);
    expect(o.status).toEqual({ replicas: 0 });
    expect(o.spec.template.spec.restartPolicy).toBe('Always');
  });

  it('keeps an explicit selector and labels', () => {
    const o = rc();
    o.spec.selector = { app: 'rc1' };
    o.metadata.labels = { team: 'x' };
    applyDefaults(o as KubeObject);
    expect(o.metadata.labels).toEqual({ team: 'x' });
  });

  it('accepts a selector defaulted from the template', () => {
    expect(causesOf(rc())).toEqual([]);
  });

  it('rejects with kube causes', () => {
    const noLabels = rc();
    delete noLabels.spec.template.metadata;
    expect(causesOf(noLabels)).toEqual([req('spec.selector')]);
    const mismatch = rc();
    mismatch.spec.selector = { app: 'other' };
    expect(causesOf(mismatch)).toEqual([inv('spec.template.metadata.labels', 'map[string]string{"app":"rc1"}', MISMATCH)]);
    const bad = rc();
    bad.spec.replicas = -1;
    bad.spec.minReadySeconds = -2;
    bad.spec.template.spec.restartPolicy = 'Never';
    bad.spec.template.spec.activeDeadlineSeconds = 5;
    expect(causesOf(bad)).toEqual([
      inv('spec.minReadySeconds', '-2', 'must be greater than or equal to 0'),
      inv('spec.replicas', '-1', 'must be greater than or equal to 0'),
      unsup('spec.template.spec.restartPolicy', '"Never"', ['Always']),
      forb('spec.template.spec.activeDeadlineSeconds', 'activeDeadlineSeconds in ReplicationController is not Supported'),
    ]);
    const noTemplate = rc();
    delete noTemplate.spec.template;
    noTemplate.spec.selector = { app: 'rc1' };
    expect(causesOf(noTemplate)).toEqual([req('spec.template')]);
  });
});
