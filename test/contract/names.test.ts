import { describe, expect, it } from 'vitest';
import { authorizerName, isAuthorizerName, parseReplicaName, replicaName } from '../../contract/names';

describe('object names', () => {
  it.each([
    ['core/pods', 'enam', 0],
    ['apps/deployments', 'weur', 3],
    ['example.com/widgets', 'apac', 12],
  ])('takes a replica name for %s apart again', (gr, location, index) => {
    const name = replicaName(gr, location, index);
    expect(name).toBe(`${gr}@${location}#${index}`);
    expect(parseReplicaName(name)).toEqual({ groupResource: gr, location, index });
    expect(isAuthorizerName(name)).toBe(false);
  });

  it.each(['authz:0', 'core/pods', 'core/pods@enam', 'core/pods@enam#', 'core/pods@enam#0.5', 'core/pods@en#am#1'])('reads %s as no replica', (name) => {
    expect(parseReplicaName(name)).toBeUndefined();
  });

  it('names authorizer shards apart from replicas', () => {
    expect(authorizerName(1)).toBe('authz:1');
    expect(isAuthorizerName(authorizerName(1))).toBe(true);
  });
});
