// Console entry: "edgeplane live". Asks for a token (or takes it from #token=…), then opens one WebSocket watch
// per resource type and lays out the panels. Everything comes from the gateway's own API as this user.
// window.__edgeplane exposes the live state for tests and the curious.

import { el, reportError } from './dom';
import { Feed } from './feed';
import { api, ApiFailure, savedToken, saveToken, tokenFromLocation, type Session } from './session';
import { WATCHED } from './types';
import { StatusBar } from './panels/status-bar';
import { Tables } from './panels/tables';
import { EventStream } from './panels/events';
import { Topology } from './panels/topology';
import { LagProbe } from './panels/lag-probe';
import { WorldMap } from './panels/world-map';
import { LatencyChart } from './panels/latency';
import { LoadGenerator, SEQ_ANNOTATION } from './panels/loadgen';

interface WhoAmI {
  user: { username: string; groups: string[] };
  client: { colo: string | null; latitude: number | null; longitude: number | null };
  replicaLocations: string[];
  replicasPerLocation: number;
  servedFrom: string;
}

const app = document.getElementById('app')!;

function login(message = ''): void {
  const input = el('input', { type: 'password', id: 'token', name: 'token', autocomplete: 'off', required: true, 'aria-describedby': 'login-help' });
  const form = el('form', { class: 'login', onsubmit: (ev) => {
    ev.preventDefault();
    saveToken(input.value.trim());
    void boot();
  } },
  el('h1', {}, 'edgeplane live'),
  el('label', { for: 'token' }, 'Bearer token'), input,
  el('p', { id: 'login-help', class: 'muted' }, 'The admin token is ADMIN_TOKEN in .dev.vars; any user\'s token works, and the console shows what RBAC lets it see.'),
  message ? el('p', { class: 'error', role: 'alert' }, message) : '',
  el('button', { type: 'submit', class: 'primary' }, 'Connect'));
  app.replaceChildren(form);
  input.focus();
}

async function boot(): Promise<void> {
  const token = tokenFromLocation() ?? savedToken();
  if (!token) return login();
  saveToken(token);
  const session: Session = { server: location.origin, token };
  let who: WhoAmI;
  try {
    who = await api<WhoAmI>(session, '/_edgeplane/whoami');
  } catch (e) {
    saveToken(undefined);
    return login(e instanceof ApiFailure && e.code === 401 ? 'That token was not accepted (401).' : `Could not reach the gateway: ${(e as Error).message}`);
  }
  const replicas = who.replicaLocations.flatMap((location) => Array.from({ length: who.replicasPerLocation }, (_, index) => ({ location, index })));
  const home = replicas.find((r) => r.location === who.servedFrom) ?? replicas[0];
  const feeds = new Map(WATCHED.map((t) => [t.id, new Feed({ session, label: t.label, path: t.path, replica: home ?? 'store' })]));
  const chart = new LatencyChart();
  const loadgen = new LoadGenerator(session, () => (replicas.length ? replicas : ['store']), chart);
  const startRv = (await api<{ metadata: { resourceVersion: string } }>(session, '/api/v1/configmaps?limit=1')).metadata.resourceVersion;
  const lagProbe = new LagProbe(session, replicas, startRv);
  const topology = new Topology(session, lagProbe);
  const status = new StatusBar(feeds, topology);
  status.setUser(`${who.user.username}${who.client.colo ? ` · via ${who.client.colo}` : ''} · served from ${home ? `${home.location}#${home.index}` : 'store'}`);
  const tables = new Tables(WATCHED, feeds);
  const events = new EventStream(feeds, (e) => {
    if (e.type !== 'ADDED') return undefined; // the load generator times its creates; later events of the object are not
    const seq = Number((e.object.metadata.annotations as Record<string, string> | undefined)?.[SEQ_ANNOTATION]);
    return Number.isInteger(seq) ? loadgen.latencyOf(seq, e.receivedAt) : undefined;
  });
  const map = new WorldMap(topology);
  map.setYou(who.client.longitude, who.client.latitude);
  map.setCanonical(who.replicaLocations[0]);
  for (const f of feeds.values()) f.onEvent(() => undefined);
  const signOut = el('button', { type: 'button', class: 'link', onclick: () => {
    saveToken(undefined);
    location.reload();
  } }, 'Sign out');
  status.root.append(signOut);
  app.replaceChildren(status.root, el('main', { class: 'grid' }, tables.root, events.root, topology.root, map.root, chart.root, loadgen.root));
  for (const f of feeds.values()) f.start();
  const readyz = async () => {
    try {
      const r = await fetch('/readyz', { headers: { authorization: `Bearer ${token}` } });
      status.setReady(r.ok);
    } catch {
      status.setReady(false);
    }
  };
  void readyz();
  setInterval(readyz, 5000);

  (window as unknown as { __edgeplane: unknown }).__edgeplane = {
    user: who.user.username,
    feeds: Object.fromEntries([...feeds].map(([id, f]) => [id, f.status])),
    rows: (id: string) => tables.names(id),
    rowRv: (id: string, name: string) => [...(feeds.get(id)?.rows.values() ?? [])].find((o) => o.metadata.name === name)?.metadata.resourceVersion,
    events: () => events.entries.newest(),
    topology: () => topology.latest,
    map: () => ({ dots: map.dots, you: map.you, projected: (lon: number, lat: number) => map.projected(lon, lat) }),
    chartPoints: () => chart.points,
    loadgen: loadgen.stats,
    startLoad: (opts: { watchers?: number; rate?: number; duration?: number }) => {
      for (const [k, v] of Object.entries(opts)) {
        const input = document.getElementById(`lg-${k}`) as HTMLInputElement | null;
        if (input && v !== undefined) input.value = String(v);
      }
      return loadgen.start();
    },
    lastError: undefined as string | undefined,
  };
}

window.addEventListener('error', (e) => reportError(e.error ?? e.message));
window.addEventListener('unhandledrejection', (e) => reportError(e.reason));
void boot();
