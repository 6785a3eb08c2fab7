import { describe, expect, it } from 'vitest';
import { deletionFinalizers } from '../../core/gc-finalizers';
import { StatusError } from '../../core/status';

describe('deletionFinalizers (store.go deletionFinalizersForGarbageCollection)', () => {
  it('adds orphan or foregroundDeletion per policy, and nothing for Background', () => {
    expect(deletionFinalizers('Deployment', undefined, { propagationPolicy: 'Orphan' })).toEqual(['orphan']);
    expect(deletionFinalizers('Deployment', ['x'], { propagationPolicy: 'Foreground' })).toEqual(['x', 'foregroundDeletion']);
    expect(deletionFinalizers('Deployment', undefined, { propagationPolicy: 'Background' })).toBeUndefined();
    expect(deletionFinalizers('Deployment', undefined, {})).toBeUndefined();
  });
  it('lets orphanDependents decide, and switches an existing GC finalizer when asked', () => {
    expect(deletionFinalizers('Deployment', undefined, { orphanDependents: true })).toEqual(['orphan']);
    expect(deletionFinalizers('Deployment', ['orphan'], { propagationPolicy: 'Foreground' })).toEqual(['foregroundDeletion']);
    expect(deletionFinalizers('Deployment', ['foregroundDeletion'], { propagationPolicy: 'Background' })).toEqual([]);
    expect(deletionFinalizers('Deployment', ['orphan'], {})).toBeUndefined();
  });
  it('orphans Jobs by default', () => {
    expect(deletionFinalizers('Job', undefined, {})).toEqual(['orphan']);
    expect(deletionFinalizers('Job', undefined, { propagationPolicy: 'Background' })).toBeUndefined();
  });
  it('refuses an unknown policy with kube\'s 422', () => {
    let err: StatusError | undefined;
    try {
      deletionFinalizers('Pod', undefined, { propagationPolicy: 'Sideways' });
    } catch (e) {
      err = e as StatusError;
    }
    expect(err?.status).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 422, reason: 'Invalid',
      message: 'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Background", "Foreground", "Orphan"',
      details: { name: '', group: 'meta.k8s.io', kind: 'DeleteOptions', causes: [{ reason: 'FieldValueNotSupported', field: 'propagationPolicy', message: 'Unsupported value: "Sideways": supported values: "Background", "Foreground", "Orphan"' }] },
    });
  });
});
