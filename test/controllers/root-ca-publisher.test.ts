// The root CA publisher: kube-root-ca.crt in every active namespace, with kube's description, recreated on delete.
import { describe, expect, it } from 'vitest';
import { DESCRIPTION, DESCRIPTION_ANNOTATION, ROOT_CA_CONFIGMAP, RootCAPublisher } from '../../controllers/root-ca-publisher';
import { RESOURCES } from '../../controllers/api-client';
import { ApiError } from '../../client/types';
import { FakeApi, FakeClock, FakeInformer } from './fakes';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const ns = (name: string, phase = 'Active', deleting = false) => ({
  apiVersion: 'v1', kind: 'Namespace', metadata: { name, ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) }, status: { phase },
});

function setup() {
  const api = new FakeApi();
  const namespaces = new FakeInformer();
  const configMaps = new FakeInformer();
  const publisher = new RootCAPublisher(api, namespaces, configMaps, PEM, new FakeClock());
  return { api, namespaces, configMaps, publisher };
}

describe('root CA publisher', () => {
  it('creates kube-root-ca.crt with ca.crt and kube\'s description in an active namespace', async () => {
    const { api, namespaces, publisher } = setup();
    namespaces.add(ns('team'));
    await publisher.sync('team');
    const created = api.objects.get(`configmaps/team/${ROOT_CA_CONFIGMAP}`)!;
    expect(created.data).toEqual({ 'ca.crt': PEM });
    expect(created.metadata.annotations).toEqual({ [DESCRIPTION_ANNOTATION]: DESCRIPTION });
    expect(DESCRIPTION).toBe('Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.');
  });

  it('writes nothing when it is there, or the namespace is terminating or gone', async () => {
    const { api, namespaces, configMaps, publisher } = setup();
    namespaces.add(ns('team'));
    configMaps.add({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ROOT_CA_CONFIGMAP, namespace: 'team' } });
    namespaces.add(ns('going', 'Terminating', true));
    for (const n of ['team', 'going', 'gone']) await publisher.sync(n);
    expect(api.writes()).toEqual([]);
  });

  it('brings it back when deleted, and takes AlreadyExists or a terminating namespace\'s 403 as done', async () => {
    const { api, namespaces, configMaps, publisher } = setup();
    namespaces.add(ns('team'));
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ROOT_CA_CONFIGMAP, namespace: 'team' } };
    configMaps.add(cm);
    configMaps.delete(cm);
    expect(publisher.queue.stats().depth).toBe(1);
    await publisher.sync('team');
    expect(api.writes('create', 'configmaps')).toHaveLength(1);
    api.create = async () => { throw new ApiError(409, { kind: 'Status', code: 409, reason: 'AlreadyExists' }); };
    await expect(publisher.sync('team')).resolves.toBeUndefined();
    api.create = async () => { throw new ApiError(403, { kind: 'Status', code: 403, reason: 'Forbidden' }); };
    await expect(publisher.sync('team')).resolves.toBeUndefined();
    api.create = async () => { throw new ApiError(500, { kind: 'Status', code: 500, reason: 'InternalError' }); };
    await expect(publisher.sync('team')).rejects.toThrow();
    expect(RESOURCES.configmaps.resource).toBe('configmaps');
  });
});
