import { describe, expect, it } from 'vitest';
import { internalToken, verifyInternalToken, INTERNAL_TOKEN_PREFIX } from '../../../core/auth/internal-identity';

const key = new TextEncoder().encode('k'.repeat(32));
const otherKey = new TextEncoder().encode('o'.repeat(32));

describe('internal identities', () => {
  it('round-trips the controller manager, a controller ServiceAccount and a node', async () => {
    expect(await verifyInternalToken(key, await internalToken(key, 'system:kube-controller-manager')))
      .toEqual({ username: 'system:kube-controller-manager', uid: '', groups: ['system:authenticated'] });
    expect(await verifyInternalToken(key, await internalToken(key, 'system:serviceaccount:kube-system:replicaset-controller')))
      .toEqual({ username: 'system:serviceaccount:kube-system:replicaset-controller', uid: '', groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated'] });
    expect((await verifyInternalToken(key, await internalToken(key, 'system:node:node-1')))?.groups).toEqual(['system:nodes', 'system:authenticated']);
    expect(await verifyInternalToken(key, await internalToken(key, 'system:kube-scheduler')))
      .toEqual({ username: 'system:kube-scheduler', uid: '', groups: ['system:authenticated'] });
    expect((await verifyInternalToken(key, await internalToken(key, 'system:serviceaccount:kube-system:node-controller')))?.username)
      .toBe('system:serviceaccount:kube-system:node-controller');
  });

  it('rejects a token from another key, a tampered user, a forged MAC and identities that are not internal', async () => {
    const token = await internalToken(key, 'system:kube-controller-manager');
    expect(await verifyInternalToken(otherKey, token)).toBeUndefined();
    const [, mac] = token.slice(INTERNAL_TOKEN_PREFIX.length).split('.');
    const admin = Buffer.from('system:serviceaccount:kube-system:generic-garbage-collector').toString('base64url');
    expect(await verifyInternalToken(key, `${INTERNAL_TOKEN_PREFIX}${admin}.${mac}`)).toBeUndefined();
    expect(await verifyInternalToken(key, `${token}x`)).toBeUndefined();
    expect(await verifyInternalToken(key, `${token}.extra`)).toBeUndefined();
    await expect(internalToken(key, 'admin')).rejects.toThrow('not an internal identity');
    await expect(internalToken(key, 'system:serviceaccount:kube-system:made-up')).rejects.toThrow();
  });
});
