import { describe, expect, it } from 'vitest';
import { parseResourcePath } from '../../core/request-info';

describe('parseResourcePath', () => {
  it.each([
    ['GET', '/api/v1/namespaces/ns/pods', false, { verb: 'list', group: '', resource: 'pods', namespace: 'ns', name: '', subresource: '' }],
    ['GET', '/api/v1/namespaces/ns/pods/p', false, { verb: 'get', resource: 'pods', namespace: 'ns', name: 'p' }],
    ['GET', '/api/v1/namespaces/ns/pods', true, { verb: 'watch', resource: 'pods', namespace: 'ns' }],
    ['GET', '/api/v1/watch/namespaces/ns/pods', false, { verb: 'watch', resource: 'pods', namespace: 'ns' }],
    ['GET', '/api/v1/watch/namespaces/ns/pods/p', false, { verb: 'watch', resource: 'pods', namespace: 'ns', name: 'p' }],
    ['GET', '/api/v1/namespaces/ns/pods/p', true, { verb: 'get', resource: 'pods', namespace: 'ns', name: 'p' }],
    ['GET', '/api/v1/pods', false, { verb: 'list', resource: 'pods', namespace: '' }],
    ['GET', '/api/v1/namespaces', false, { verb: 'list', resource: 'namespaces', namespace: '', name: '' }],
    ['GET', '/api/v1/namespaces/foo', false, { verb: 'get', resource: 'namespaces', namespace: '', name: 'foo' }],
    ['PUT', '/api/v1/namespaces/foo/status', false, { verb: 'update', resource: 'namespaces', name: 'foo', subresource: 'status' }],
    ['PATCH', '/apis/apps/v1/namespaces/ns/deployments/web/scale', false, { verb: 'patch', group: 'apps', resource: 'deployments', name: 'web', subresource: 'scale' }],
    ['POST', '/apis/apps/v1/namespaces/ns/deployments', false, { verb: 'create', group: 'apps', namespace: 'ns' }],
    ['DELETE', '/api/v1/namespaces/ns/configmaps', false, { verb: 'deletecollection', resource: 'configmaps' }],
    ['DELETE', '/api/v1/namespaces/ns/configmaps/c', false, { verb: 'delete', name: 'c' }],
  ] as const)('%s %s (watch=%s)', (method, path, watch, expected) => {
    expect(parseResourcePath(method, path, watch)).toMatchObject(expected);
  });

  it('leaves unknown resources without a type and non-resource paths undefined', () => {
    expect(parseResourcePath('GET', '/api/v1/namespaces/ns/widgets', false)?.type).toBeUndefined();
    expect(parseResourcePath('GET', '/apis/apps/v2/deployments', false)?.type).toBeUndefined();
    expect(parseResourcePath('GET', '/healthz', false)).toBeUndefined();
    expect(parseResourcePath('GET', '/apis/apps', false)).toBeUndefined();
  });
});
