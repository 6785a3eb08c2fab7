// The store's namespace fence: once a namespace deletion has reached a type's store, a create admitted
// against the namespace before it was marked Terminating is refused in the store's own transaction, while
// objects written before the fence are deleted with the rest, and a namespace created again is not fenced.
import { describe, expect, it } from 'vitest';
import { env } from 'cloudflare:workers';
import { api, configMap } from './api';

const store = () => env.STORE.get(env.STORE.idFromName('core/configmaps'));
const create = (ns: string, name: string, namespaceRevision: number) =>
  store().write('core/configmaps', { verb: 'create', namespace: ns, body: JSON.stringify(configMap(name)) }, { namespaceRevision });

describe('namespace fence', () => {
  it('refuses creates admitted before Terminating, deletes those before the fence, admits a new incarnation', async () => {
    expect((await api('POST', '/api/v1/namespaces', { metadata: { name: 'fenced' } })).status).toBe(201);
    const admittedAt = Number((await api('GET', '/api/v1/namespaces/fenced')).json.metadata.resourceVersion);
    expect((await create('fenced', 'before', admittedAt)).ok).toBe(true);

    const emptied = await store().terminateNamespace('core/configmaps', 'fenced', admittedAt + 1);
    expect(emptied.ok).toBe(true);
    const late = await create('fenced', 'late', admittedAt);
    expect(late).toEqual({
      ok: false,
      status: {
        kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure',
        message: 'configmaps "late" is forbidden: unable to create new content in namespace fenced because it is being terminated',
        reason: 'Forbidden',
        details: {
          name: 'late', kind: 'configmaps',
          causes: [{ reason: 'NamespaceTerminating', message: 'namespace fenced is being terminated', field: 'metadata.namespace' }],
        },
        code: 403,
      },
    });
    expect((await api('GET', '/api/v1/namespaces/fenced/configmaps')).json.items).toEqual([]);
    // Other namespaces, and the namespace once created again (a newer revision), are not fenced.
    expect((await create('default', 'late', admittedAt)).ok).toBe(true);
    expect((await create('fenced', 'reborn', admittedAt + 2)).ok).toBe(true);
    expect((await api('GET', '/api/v1/namespaces/fenced/configmaps')).json.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['reborn']);
  });
});
