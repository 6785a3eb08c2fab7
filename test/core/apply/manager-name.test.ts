import { describe, expect, it } from 'vitest';
import { managerOrUserAgent, validateFieldManager } from '../../../core/apply/manager-name';
import { checkPatchOptions } from '../../../core/apply/apply-body';
import { statusOf } from '../status-of';

describe('field manager names', () => {
  it('defaults to the User-Agent up to its first "/", printable characters only, at most 128 bytes', () => {
    expect(managerOrUserAgent(undefined, 'kubectl/v1.32.0 (linux/amd64) kubernetes/abc')).toBe('kubectl');
    expect(managerOrUserAgent(undefined, 'Go-http-client/1.1')).toBe('Go-http-client');
    expect(managerOrUserAgent('kubectl-edit', 'kubectl/v1.32.0')).toBe('kubectl-edit');
    expect(managerOrUserAgent(undefined, 'a\u0007b/1')).toBe('ab');
    expect(managerOrUserAgent(undefined, 'x'.repeat(200))).toHaveLength(128);
    expect(managerOrUserAgent(undefined, undefined)).toBe('');
  });

  it('rejects long or unprintable managers with kube\'s causes', () => {
    expect(validateFieldManager('x'.repeat(129))).toEqual([{ reason: 'FieldValueTooLong', message: 'Too long: may not be more than 128 bytes', field: 'fieldManager' }]);
    expect(validateFieldManager('a\nb')[0].message).toBe('Invalid value: "a\\nb": invalid character U+000A (at position 1)');
    expect(statusOf(() => checkPatchOptions(true, 'x'.repeat(129), undefined)).message)
      .toBe('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes');
  });

  it('takes every printable ASCII character as kube does (the fast path agrees with the per-character rule)', () => {
    const ascii = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join('').replace('/', '');
    expect(validateFieldManager(ascii)).toEqual([]);
    expect(validateFieldManager(`${ascii}é`)).toEqual([]); // the per-character path
    expect(managerOrUserAgent(undefined, `${ascii}/1`)).toBe(ascii);
    expect(managerOrUserAgent(undefined, `${ascii}é\u0001/1`)).toBe(`${ascii}é`);
  });
});

describe('parseIdentifier', () => {
  it('reads what managerIdentifier wrote, the same for a repeated identifier, within its bound for many', async () => {
    const { managerIdentifier, parseIdentifier } = await import('../../../core/apply/managed-fields');
    const id = managerIdentifier({ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', subresource: 'status' });
    expect(parseIdentifier(id)).toEqual({ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', subresource: 'status' });
    expect(parseIdentifier(id)).toBe(parseIdentifier(id));
    for (let i = 0; i < 1000; i++) expect(parseIdentifier(managerIdentifier({ manager: `m${i}`, operation: 'Apply' })).manager).toBe(`m${i}`);
    const long = managerIdentifier({ manager: 'x'.repeat(2000), operation: 'Apply' });
    expect(parseIdentifier(long).manager).toBe('x'.repeat(2000));
  });
});
