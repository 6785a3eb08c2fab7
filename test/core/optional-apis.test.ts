// core/registry.ts OPTIONAL_TYPES and the RUNTIME_CONFIG setting (core/settings.ts): kube 1.32's alpha APIs are
// served only when enabled, and then everywhere the registry answers (lookups, stored types, discovery groups).
import { afterEach, describe, expect, it } from 'vitest';
import { allResourceTypes, allStoredTypes, apiGroups, enableApiVersions, lookupGroupResource, lookupType } from '../../core/registry';
import { parseSettings } from '../../core/settings';

const AR = 'admissionregistration.k8s.io';

afterEach(() => enableApiVersions([]));

describe('optional APIs', () => {
  it('are off by default', () => {
    expect(lookupType(AR, 'v1alpha1', 'mutatingadmissionpolicies')).toBeUndefined();
    expect(lookupGroupResource(`${AR}/mutatingadmissionpolicies`)).toBeUndefined();
    expect(apiGroups().find((g) => g.name === AR)?.versions).toEqual(['v1']);
  });
  it('RUNTIME_CONFIG serves them everywhere, and turning it off removes them', () => {
    enableApiVersions([`${AR}/v1alpha1=true`]);
    const t = lookupType(AR, 'v1alpha1', 'mutatingadmissionpolicies');
    expect(t).toMatchObject({ kind: 'MutatingAdmissionPolicy', namespaced: false });
    expect(lookupGroupResource(`${AR}/mutatingadmissionpolicybindings`)?.kind).toBe('MutatingAdmissionPolicyBinding');
    expect(allResourceTypes()).toContain(t);
    expect(allStoredTypes()).toContain(t);
    expect(apiGroups().find((g) => g.name === AR)?.versions).toEqual(['v1', 'v1alpha1']);
    enableApiVersions([`${AR}/v1alpha1=false`]);
    expect(lookupType(AR, 'v1alpha1', 'mutatingadmissionpolicies')).toBeUndefined();
    expect(allResourceTypes()).not.toContain(t);
  });
  it('an unknown group version is a bad setting', () => {
    expect(parseSettings({ RUNTIME_CONFIG: `${AR}/v1alpha1` }).problems).toEqual([]);
    expect(parseSettings({ RUNTIME_CONFIG: 'batch/v2alpha1' }).problems).toEqual([`RUNTIME_CONFIG: "batch/v2alpha1" not known; known: ${AR}/v1alpha1`]);
  });
});
