// Tokens through the front door: TokenRequest audiences, expirations and bound objects as kube-apiserver
// has them; anonymous access to exactly the health and version paths; refusing to serve without a signing
// secret; static tokens on a gateway that has only a signing key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, kubectl, SIGNING_KEY, startTestGateway, stopTestGateway, type Running } from './fixtures';

const NS = 'tok';
const ISSUER = 'https://kubernetes.default.svc.cluster.local';
const TOKENS = `/api/v1/namespaces/${NS}/serviceaccounts`;
const UNAUTHORIZED = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 };

let r: Running;
beforeAll(async () => {
  r = await startTestGateway();
  await http(r, 'POST', '/api/v1/namespaces', { metadata: { name: NS } });
  for (const name of ['robot', 'other']) expect((await http(r, 'POST', TOKENS, { metadata: { name } })).status).toBe(201);
}, 120_000);
afterAll(() => stopTestGateway(r));

function requestToken(spec: object, account = 'robot') {
  return http(r, 'POST', `${TOKENS}/${account}/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec });
}
async function issued(spec: object): Promise<{ token: string; body: any }> {
  const res = await requestToken(spec);
  expect(res.status, res.text).toBe(201);
  return { token: res.json.status.token, body: res.json };
}
/** Who the token is: the username from a SelfSubjectReview, or the HTTP status when it is refused. */
async function whoami(token: string): Promise<string | number> {
  const res = await http(r, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, { authorization: `Bearer ${token}` });
  if (res.status !== 201) {
    expect(res.json).toEqual(UNAUTHORIZED);
    return res.status;
  }
  return res.json.status.userInfo.username;
}
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
async function anonymous(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${r.gateway.url}${path}`, { headers });
  return { status: res.status, text: await res.text() };
}
async function create(path: string, body: object): Promise<any> {
  const res = await http(r, 'POST', path, body);
  expect(res.status, res.text).toBe(201);
  return res.json;
}
const pod = (name: string, serviceAccountName: string) => ({ metadata: { name }, spec: { serviceAccountName, containers: [{ name: 'c', image: 'nginx' }] } });

describe('TokenRequest audiences', () => {
  it('defaults to the API audience, and a token for another audience is issued but gets 401', async () => {
    const plain = await issued({});
    expect(plain.body.spec).toEqual({ audiences: [ISSUER], expirationSeconds: 3600 });
    expect(claimsOf(plain.token)).toMatchObject({ iss: ISSUER, aud: [ISSUER], sub: `system:serviceaccount:${NS}:robot` });
    expect(await whoami(plain.token)).toBe(`system:serviceaccount:${NS}:robot`);

    const vault = await issued({ audiences: ['https://vault.example.com'] });
    expect(vault.body.spec.audiences).toEqual(['https://vault.example.com']);
    expect(claimsOf(vault.token).aud).toEqual(['https://vault.example.com']);
    expect(await whoami(vault.token)).toBe(401);

    const both = await issued({ audiences: ['https://vault.example.com', ISSUER] });
    expect(await whoami(both.token)).toBe(`system:serviceaccount:${NS}:robot`);
  });

  it('kubectl create token --audience yields a token the API refuses', async () => {
    const out = await kubectl(r, ['create', 'token', 'robot', '-n', NS, '--audience', 'https://vault.example.com']);
    expect(out.code, out.stderr).toBe(0);
    expect(await whoami(out.stdout.trim())).toBe(401);
  });
});

describe('TokenRequest expiration', () => {
  it('refuses under ten minutes and over 2^32 seconds with kube\'s 422', async () => {
    const short = await requestToken({ expirationSeconds: 60 });
    expect(short.status).toBe(422);
    expect(short.json).toMatchObject({
      reason: 'Invalid', code: 422,
      message: 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
      details: { group: 'authentication.k8s.io', kind: 'TokenRequest', causes: [{ reason: 'FieldValueInvalid', field: 'spec.expirationSeconds' }] },
    });
    const long = await requestToken({ expirationSeconds: 2 ** 32 + 1 });
    expect(long.json.message).toBe(`TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: ${2 ** 32 + 1}: may not specify a duration larger than 2^32 seconds`);
  });

  it('issues an hour by default and shortens a longer request to the maximum, with a warning', async () => {
    const before = Math.floor(Date.now() / 1000);
    const plain = await issued({});
    const c = claimsOf(plain.token);
    expect(c.exp - c.iat).toBe(3600);
    expect(c.iat).toBeGreaterThanOrEqual(before);
    expect(Date.parse(plain.body.status.expirationTimestamp) / 1000).toBe(c.exp);

    const res = await requestToken({ expirationSeconds: 30 * 24 * 3600 });
    expect(res.status).toBe(201);
    expect(res.json.spec.expirationSeconds).toBe(86400);
    expect(res.headers.get('warning')).toBe('299 - "requested expiration of 2592000 seconds shortened to 86400 seconds"');
    const capped = claimsOf(res.json.status.token);
    expect(capped.exp - capped.iat).toBe(86400);
  });

  it('refuses a body naming another account, and fields of the wrong type', async () => {
    const res = await http(r, 'POST', `${TOKENS}/robot/token`, { metadata: { name: 'other' }, spec: {} });
    expect(res.json).toMatchObject({
      code: 422, message: 'TokenRequest.authentication.k8s.io "robot" is invalid: metadata.name: Invalid value: "other": must match the service account name if specified',
    });
    const typed = await requestToken({ expirationSeconds: '3600' });
    expect(typed.json).toMatchObject({
      code: 400, message: 'TokenRequest in version "v1" cannot be handled as a TokenRequest: json: cannot unmarshal string into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64',
    });
  });

  it('answers a missing account with 404', async () => {
    const res = await requestToken({}, 'nobody');
    expect(res.json).toMatchObject({ code: 404, reason: 'NotFound', message: 'serviceaccounts "nobody" not found' });
  });
});

describe('bound tokens', () => {
  it('a pod-bound token works until the pod is deleted, and not for a new pod of the same name', async () => {
    const p = await create(`/api/v1/namespaces/${NS}/pods`, pod('web', 'robot'));
    const ref = { kind: 'Pod', apiVersion: 'v1', name: 'web', uid: p.metadata.uid };
    const { token, body } = await issued({ boundObjectRef: ref });
    expect(body.spec.boundObjectRef).toEqual(ref);
    expect(claimsOf(token)['kubernetes.io']).toEqual({ namespace: NS, serviceaccount: { name: 'robot', uid: expect.any(String) }, pod: { name: 'web', uid: p.metadata.uid } });
    expect(await whoami(token)).toBe(`system:serviceaccount:${NS}:robot`);

    expect((await http(r, 'DELETE', `/api/v1/namespaces/${NS}/pods/web`)).status).toBe(200);
    expect(await whoami(token)).toBe(401);
    await create(`/api/v1/namespaces/${NS}/pods`, pod('web', 'robot'));
    expect(await whoami(token)).toBe(401);
  });

  it('kubectl create token --bound-object-kind Pod binds the token to that pod', async () => {
    await create(`/api/v1/namespaces/${NS}/pods`, pod('kubectl-web', 'robot'));
    const out = await kubectl(r, ['create', 'token', 'robot', '-n', NS, '--bound-object-kind', 'Pod', '--bound-object-name', 'kubectl-web']);
    expect(out.code, out.stderr).toBe(0);
    const token = out.stdout.trim();
    expect(claimsOf(token)['kubernetes.io'].pod.name).toBe('kubectl-web');
    expect(await whoami(token)).toBe(`system:serviceaccount:${NS}:robot`);
    await http(r, 'DELETE', `/api/v1/namespaces/${NS}/pods/kubectl-web`);
    expect(await whoami(token)).toBe(401);
  });

  it('a secret-bound token works until the secret is deleted', async () => {
    const s = await create(`/api/v1/namespaces/${NS}/secrets`, { metadata: { name: 'holder' } });
    const { token } = await issued({ boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'holder' } });
    expect(claimsOf(token)['kubernetes.io'].secret).toEqual({ name: 'holder', uid: s.metadata.uid });
    expect(await whoami(token)).toBe(`system:serviceaccount:${NS}:robot`);
    await http(r, 'DELETE', `/api/v1/namespaces/${NS}/secrets/holder`);
    expect(await whoami(token)).toBe(401);
  });

  it('a node-bound token dies with the node; a pod-bound token records the pod\'s node', async () => {
    const node = await create('/api/v1/nodes', { metadata: { name: 'worker-1' } });
    const { token } = await issued({ boundObjectRef: { kind: 'Node', apiVersion: 'v1', name: 'worker-1', uid: node.metadata.uid } });
    expect(claimsOf(token)['kubernetes.io'].node).toEqual({ name: 'worker-1', uid: node.metadata.uid });
    const scheduled = await create(`/api/v1/namespaces/${NS}/pods`, { ...pod('scheduled', 'robot'), spec: { ...pod('scheduled', 'robot').spec, nodeName: 'worker-1' } });
    const podBound = await issued({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'scheduled' } });
    expect(claimsOf(podBound.token)['kubernetes.io']).toMatchObject({ pod: { name: 'scheduled', uid: scheduled.metadata.uid }, node: { name: 'worker-1', uid: node.metadata.uid } });
    expect(await whoami(token)).toBe(`system:serviceaccount:${NS}:robot`);
    await http(r, 'DELETE', '/api/v1/nodes/worker-1');
    expect(await whoami(token)).toBe(401);
    // The pod's node is information only (claims.go validates it only for a token bound to the node).
    expect(await whoami(podBound.token)).toBe(`system:serviceaccount:${NS}:robot`);
  });

  it('refuses a missing object, a stale uid, a pod of another account and an unsupported kind as kube does', async () => {
    const missing = await requestToken({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'ghost' } });
    expect(missing.json).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'pods "ghost" not found', reason: 'NotFound',
      details: { name: 'ghost', kind: 'pods' }, code: 404,
    });
    await create(`/api/v1/namespaces/${NS}/pods`, pod('db', 'robot'));
    const stale = await requestToken({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'db', uid: 'not-its-uid' } });
    expect(stale.json).toMatchObject({
      code: 409, reason: 'Conflict', details: { name: 'db', kind: 'Pod' },
      message: 'Operation cannot be fulfilled on Pod "db": the UID in the bound object reference (not-its-uid) does not match the UID in record. The object might have been deleted and then recreated',
    });
    const foreign = await requestToken({ boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'db' } }, 'other');
    expect(foreign.json).toMatchObject({ code: 400, reason: 'BadRequest', message: 'cannot bind token for serviceaccount "other" to pod running with different serviceaccount name.' });
    const configMap = await requestToken({ boundObjectRef: { kind: 'ConfigMap', apiVersion: 'v1', name: 'x' } });
    expect(configMap.json).toMatchObject({ code: 400, message: 'cannot bind token to object of type /v1, Kind=ConfigMap' });
  });
});

describe('anonymous requests', () => {
  it('reach /healthz, /livez, /readyz and /version, and nothing else', async () => {
    for (const path of ['/healthz', '/livez', '/readyz']) expect(await anonymous(path)).toEqual({ status: 200, text: 'ok' });
    const version = await anonymous('/version');
    expect(version.status).toBe(200);
    expect(JSON.parse(version.text)).toHaveProperty('gitVersion');
    for (const path of ['/api/v1/namespaces', '/api', '/livez/ping', '/metrics', '/healthz/']) {
      const res = await anonymous(path);
      expect(res.status, path).toBe(401);
      expect(JSON.parse(res.text)).toEqual(UNAUTHORIZED);
    }
  });

  it('with a bad token are 401 even on /healthz, whether the token comes as a header or a subprotocol', async () => {
    const attempts: Record<string, string>[] = [
      { authorization: 'Bearer not-a-token' },
      { authorization: 'Bearer a.b.c' },
      { 'sec-websocket-protocol': `base64url.bearer.authorization.k8s.io.${Buffer.from('wrong').toString('base64url')}, base64.binary.k8s.io` },
      { 'sec-websocket-protocol': 'base64url.bearer.authorization.k8s.io.***, base64.binary.k8s.io' },
    ];
    for (const headers of attempts) {
      expect((await anonymous('/healthz', headers)).status, JSON.stringify(headers)).toBe(401);
    }
  });

  it('the health endpoints answer in kube\'s verbose format and per check', async () => {
    expect((await http(r, 'GET', '/readyz?verbose')).text).toBe('[+]ping ok\nreadyz check passed\n');
    expect((await http(r, 'GET', '/livez?verbose&exclude=ping&exclude=etcd')).text).toBe('[+]ping excluded: ok\nwarn: some health checks cannot be excluded: no matches for "etcd"\nlivez check passed\n');
    expect((await http(r, 'GET', '/livez/ping')).text).toBe('ok');
    expect((await http(r, 'GET', '/healthz/etcd')).status).toBe(404);
  });
});

describe('secrets', () => {
  it('a gateway with neither ADMIN_TOKEN nor a signing key refuses every request, naming the secret', async () => {
    const bare = await startTestGateway({ secrets: {} });
    try {
      for (const [path, headers] of [['/healthz', {}], ['/api/v1/namespaces', { authorization: 'Bearer e2e-admin-token' }]] as const) {
        const res = await fetch(`${bare.gateway.url}${path}`, { headers });
        expect(res.status).toBe(503);
        expect(await res.json()).toEqual({
          kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'ServiceUnavailable', code: 503,
          message: 'edgeplane is not configured: the SERVICE_ACCOUNT_SIGNING_KEY secret is not set (nor ADMIN_TOKEN to derive it from)',
        });
      }
    } finally {
      await stopTestGateway(bare);
    }
  });

  it('a gateway with only a signing key serves static-token users, and no admin token works', async () => {
    const keyed = await startTestGateway({ secrets: { serviceAccountSigningKey: SIGNING_KEY }, vars: { STATIC_TOKENS: 'alice-token,alice,uid-a' } });
    try {
      const review = (token: string) => fetch(`${keyed.gateway.url}/apis/authentication.k8s.io/v1/selfsubjectreviews`, {
        method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
      });
      const alice = await review('alice-token');
      expect(alice.status).toBe(201);
      expect(((await alice.json()) as any).status.userInfo).toEqual({ username: 'alice', uid: 'uid-a', groups: ['system:authenticated'] });
      expect((await review('e2e-admin-token')).status).toBe(401);
      expect((await fetch(`${keyed.gateway.url}/livez`)).status).toBe(200);
    } finally {
      await stopTestGateway(keyed);
    }
  });
});
