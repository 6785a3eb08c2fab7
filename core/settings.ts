// Core: every setting edgeplane reads from its environment (wrangler.toml [vars], .dev.vars, or a test's vars), as
// one table of named settings with units, defaults and bounds, parsed once at each entry point (the Worker and
// each Durable Object) into a typed `Settings`. One rule per kind; a value that breaks it is a problem naming the
// setting — the entry refuses to serve with it — never a silent fallback. Code receives `Settings`, never `env`.
// docs/configuration.md's table is generated from this table (scripts/settings-doc.ts, `npm run gen`).
//
// The rules: numbers are decimal integers (or, for rates, decimals) within the setting's bounds; unset or blank
// means the default. Booleans are true/on or false/off (any case); blank means false, so CONTROLLERS = "" turns
// the loops off. Lists are comma-separated, trimmed, empty items dropped. Strings are trimmed; blank means default.

import { enableApiVersions, OPTIONAL_API_VERSIONS } from './registry';

type Value = number | boolean | string | readonly string[];

interface Spec<T extends Value> {
  env: string;
  kind: 'integer' | 'seconds' | 'bytes' | 'rate' | 'boolean' | 'list' | 'string';
  default: T;
  min?: number;
  max?: number;
  doc: string;
}

const KiB = 1024;
const MiB = 1024 * KiB;

const integer = (env: string, d: number, min: number, max: number, doc: string): Spec<number> => ({ env, kind: 'integer', default: d, min, max, doc });
const seconds = (env: string, d: number, min: number, max: number, doc: string): Spec<number> => ({ env, kind: 'seconds', default: d, min, max, doc });
const bytes = (env: string, d: number, min: number, max: number, doc: string): Spec<number> => ({ env, kind: 'bytes', default: d, min, max, doc });
const rate = (env: string, d: number, min: number, max: number, doc: string): Spec<number> => ({ env, kind: 'rate', default: d, min, max, doc });
const boolean = (env: string, d: boolean, doc: string): Spec<boolean> => ({ env, kind: 'boolean', default: d, doc });
const list = (env: string, doc: string): Spec<readonly string[]> => ({ env, kind: 'list', default: [], doc });
const string = (env: string, d: string, doc: string): Spec<string> => ({ env, kind: 'string', default: d, doc });

const DAY = 24 * 60 * 60;

/** The table: a setting's key in `Settings` → its environment name, kind, default, bounds and meaning. */
export const SETTINGS = {
  // The canonical log
  eventRetentionCount: integer('EVENT_RETENTION_COUNT', 10_000, 1, 10_000_000, 'events kept per resource type; resuming from before them answers 410 Expired'),
  eventRetentionSeconds: seconds('EVENT_RETENTION_SECONDS', 0, 0, 365 * DAY, 'if not 0, events older than this are compacted too'),
  // Watch caches (the store's and every replica's)
  watchWindowEvents: integer('WATCH_WINDOW_EVENTS', 10_000, 1, 1_000_000, 'events kept in memory for resumes and RV-exact lists'),
  watchWindowBytes: bytes('WATCH_WINDOW_BYTES', 32 * MiB, 1 * MiB, 96 * MiB, 'the same window bounded in bytes (the isolate has 128 MB)'),
  watchBookmarkIntervalSeconds: seconds('WATCH_BOOKMARK_INTERVAL_SECONDS', 60, 1, DAY, 'BOOKMARK events to watchers that asked for them'),
  watchHeartbeatSeconds: seconds('WATCH_HEARTBEAT_SECONDS', 30, 1, 3600, 'idle HTTP watch streams get a blank line this often'),
  watchMinTimeoutSeconds: seconds('WATCH_MIN_TIMEOUT_SECONDS', 1800, 1, DAY, "a watch without timeoutSeconds ends after this to twice this (kube's --min-request-timeout)"),
  watchBufferBytes: bytes('WATCH_BUFFER_BYTES', 1 * MiB, 16 * KiB, 64 * MiB, 'per HTTP watcher, unsent bytes before a slow watcher is closed (it resumes)'),
  watchSocketBudgetBytes: bytes('WATCH_SOCKET_BUDGET_BYTES', 16 * MiB, 64 * KiB, 1024 * MiB, 'per WebSocket watcher, bytes sent since the client was last heard from before it is closed'),
  maxWatchers: integer('MAX_WATCHERS', 6000, 1, 32_768, "tenants' watches per store or replica of a type, together (429 beyond); system components are not counted"),
  maxWatchesPerUser: integer('MAX_WATCHES_PER_USER', 1000, 1, 32_768, 'open watches of one user per type in one store or replica (429 beyond; system components exempt)'),
  maxWatchesPerNamespace: integer('MAX_WATCHES_PER_NAMESPACE', 1000, 1, 32_768, "open watches per type in one store or replica of a namespace: those watching it and its ServiceAccounts' (429 beyond)"),
  // Replicas and authorizers
  replicaLocations: list('REPLICA_LOCATIONS', 'location hints of watch-cache replicas; empty: the store serves watches itself'),
  replicasPerLocation: integer('REPLICAS_PER_LOCATION', 1, 1, 64, "replicas per location; watchers are spread over them by tenant (a ServiceAccount's namespace, else the user) and address"),
  authzShards: integer('AUTHZ_SHARDS', 1, 1, 256, 'authorizer Durable Objects, users spread over them by a hash of their name'),
  authzDecisionCacheBytes: bytes('AUTHZ_DECISION_CACHE_BYTES', 16 * MiB, 0, 64 * MiB, 'per authorizer shard, cached RBAC decisions (0: none)'),
  rateLimitQps: rate('RATE_LIMIT_QPS', 200, 0.001, 1_000_000, "per user, requests per second (token bucket; system:masters exempt)"),
  rateLimitBurst: integer('RATE_LIMIT_BURST', 100, 1, 10_000_000, 'per user, the bucket size (requests at once; past it they wait for tokens, see RATE_LIMIT_MAX_DELAY_MS)'),
  rateLimitMaxDelayMs: integer('RATE_LIMIT_MAX_DELAY_MS', 1500, 0, 10_000, "per user, how long a request past the bucket may wait for its token instead of 429 (it holds no flow-control seat meanwhile; 0: 429 at once)"),
  // API Priority and Fairness (docs/auth.md): per front-door isolate
  // kube's 600 (max-requests-inflight + max-mutating-requests-inflight) suits a many-core server; one isolate is one
  // thread and saturates with about ten requests in flight. Measured side by side under a 64-way flood (bench apf):
  // another user's p50 ×100 at 600 seats, ×23 at 20, ×10 at 10, the flood's throughput unchanged.
  apfConcurrency: integer('APF_CONCURRENCY', 100, 1, 100_000, "per isolate, seats shared by the priority levels by their nominalConcurrencyShares (kube's max-requests-inflight + max-mutating-requests-inflight)"),
  // An isolate is one thread: past a few requests doing work at once, more seats only interleave them. Opt-in: every
  // limited level's share for young requests is scaled down while the event loop runs late (core/flowcontrol/load.ts).
  // Measured side by side (docs/auth.md): system traffic's p99 under a flood ×1.7–6.5 of idle instead of ×10–28, but another
  // tenant of the flood's own level fared no better, and worse in three runs of four.
  apfLagTargetMs: integer('APF_LAG_TARGET_MS', 0, 0, 10_000, 'per isolate, event-loop lag past which flow control scales its levels\' seats for young requests down while it lasts (0: off, every seat usable)'),
  apfMaxWaiting: integer('APF_MAX_WAITING', 5000, 0, 1_000_000, 'per isolate, requests waiting in all priority levels\' queues together; beyond it a request that would queue gets 429'),
  apfWaitLimitSeconds: seconds('APF_WAIT_LIMIT_SECONDS', 15, 1, 600, "a queued request not dispatched within this gets 429 (kube: a quarter of the request timeout)"),
  // Authentication
  anonymousAuth: boolean('ANONYMOUS_AUTH', false, 'anonymous requests on every path (RBAC still decides); otherwise only /healthz, /livez, /readyz, /version'),
  serviceAccountIssuer: string('SERVICE_ACCOUNT_ISSUER', 'https://kubernetes.default.svc.cluster.local', 'the iss of ServiceAccount tokens'),
  apiAudiences: list('API_AUDIENCES', 'audiences a ServiceAccount token must hold one of; empty: the issuer'),
  serviceAccountMaxTokenExpirationSeconds: seconds('SERVICE_ACCOUNT_MAX_TOKEN_EXPIRATION_SECONDS', DAY, 3600, 2 ** 32, 'longer TokenRequests are shortened to this, with a warning'),
  // Audit (docs/audit.md)
  localPeerAddress: string('LOCAL_PEER_ADDRESS', '', "the address requests come from when the platform names none (no CF-Connecting-IP), as audit events' last sourceIP: `npm start` sets its listener's, 127.0.0.1, whose socket goes straight to the Worker; empty: none"),
  auditPolicy: string('AUDIT_POLICY', '', 'an audit.k8s.io/v1 Policy, YAML or JSON; empty: the built-in default (Metadata for most requests, nothing for probes and event reads)'),
  auditLogConsole: boolean('AUDIT_LOG_CONSOLE', false, 'every audit event also as one JSON line on the console (Workers Logpush, wrangler tail)'),
  auditBufferBytes: bytes('AUDIT_BUFFER_BYTES', 4 * MiB, 0, 64 * MiB, 'per isolate, the newest audit events kept for GET /_edgeplane/audit (0: none)'),
  auditQueueBytes: bytes('AUDIT_QUEUE_BYTES', 1 * MiB, 64 * KiB, 16 * MiB, 'per isolate, audit events waiting to be written; beyond it events are dropped and counted'),
  auditMaxEventBytes: bytes('AUDIT_MAX_EVENT_BYTES', 100 * KiB, 4 * KiB, 4 * MiB, "one audit event; larger ones lose their request/response objects (kube's --audit-log-truncate-max-event-size)"),
  // Admission (docs/admission.md): PodSecurity's exemptions, as kube's PodSecurityConfiguration `exemptions`
  podSecurityExemptUsernames: list('POD_SECURITY_EXEMPT_USERNAMES', "users whose pods and workloads PodSecurity does not evaluate (audit annotation pod-security.kubernetes.io/exempt: user)"),
  podSecurityExemptNamespaces: list('POD_SECURITY_EXEMPT_NAMESPACES', 'namespaces whose pods and workloads PodSecurity does not evaluate (exempt: namespace)'),
  podSecurityExemptRuntimeClasses: list('POD_SECURITY_EXEMPT_RUNTIME_CLASSES', 'runtimeClassNames whose pods and pod templates PodSecurity does not evaluate (exempt: runtimeClass)'),
  // APIs
  runtimeConfig: list('RUNTIME_CONFIG', "API group versions served beyond kube 1.32's defaults, as kube-apiserver's --runtime-config (with the feature gate): `admissionregistration.k8s.io/v1alpha1` serves MutatingAdmissionPolicy and its binding"),
  // The simulated cluster
  controllers: boolean('CONTROLLERS', true, 'the control loops, scheduler, simulated kubelets and kube-proxy stand-ins'),
  simulatedNodes: integer('SIMULATED_NODES', 3, 0, 250, 'simulated kubelets node-1, node-2, …'),
  controllerResyncSeconds: seconds('CONTROLLER_RESYNC_SECONDS', 300, 1, DAY, "the control loops' informers re-deliver their caches every this to 2× this (kube's --min-resync-period), so a loop that missed an event converges"),
  nodeMonitorGraceSeconds: seconds('NODE_MONITOR_GRACE_SECONDS', 40, 1, DAY, 'Lease silence before a node is Unknown and tainted'),
  defaultTolerationSeconds: seconds('DEFAULT_TOLERATION_SECONDS', 300, 0, 365 * DAY, 'the not-ready/unreachable tolerations every new pod gets'),
  loadBalancerPool: string('LOAD_BALANCER_POOL', '198.51.100.0/24', 'the IPv4 CIDR Services of type LoadBalancer get status.loadBalancer.ingress addresses from (empty: none)'),
  rootCaCert: string('ROOT_CA_CERT', '', "PEM bundle published as ca.crt of the kube-root-ca.crt ConfigMap in every namespace (kube's root CA publisher); `npm start` sets its self-signed certificate"),
  clusterSigningCert: string('CLUSTER_SIGNING_CERT', '', "PEM certificate of the CA that signs approved CertificateSigningRequests of kube's kubernetes.io signers, with the CLUSTER_SIGNING_KEY secret (empty: no signing, as kube-controller-manager without --cluster-signing-cert-file); `npm start` sets its self-signed certificate and key"),
  clusterSigningDurationSeconds: seconds('CLUSTER_SIGNING_DURATION_SECONDS', 365 * DAY, 600, 100 * 365 * DAY, "the longest lifetime of a signed certificate; spec.expirationSeconds may shorten it to 10 minutes (kube's --cluster-signing-duration)"),
  staticPodUrl: string('STATIC_POD_URL', '', "http(s) URL of static pod manifests (YAML or JSON: a Pod, a PodList, or several documents) the simulated kubelets run as mirror pods (kube's --manifest-url); `npm start` serves STATIC_POD_DIR here; empty: none"),
  staticPodPath: string('STATIC_POD_PATH', '', "the folder STATIC_POD_URL serves (`npm start` sets it with STATIC_POD_DIR): mirror pods then say config.source: file and tolerate NoExecute taints, as --pod-manifest-path's do"),
  staticPodCheckSeconds: seconds('STATIC_POD_CHECK_SECONDS', 20, 1, DAY, "how often STATIC_POD_URL is read again (kube's httpCheckFrequency)"),
  staticPodNodes: list('STATIC_POD_NODES', 'the simulated nodes that run the static pods (e.g. node-1); empty: every one'),
  eventTtlSeconds: seconds('EVENT_TTL_SECONDS', 3600, 1, 365 * DAY, "events expire this long after their last recorded time (kube's --event-ttl)"),
  // Tests only
  enableTestHooks: boolean('ENABLE_TEST_HOOKS', false, 'POST /debug/raw-write and other test hooks; never in production'),
} as const;

type Table = typeof SETTINGS;
type Widen<T> = T extends number ? number : T extends boolean ? boolean : T extends string ? string : readonly string[];
export type Settings = { readonly [K in keyof Table]: Widen<Table[K]['default']> };

export interface Parsed {
  settings: Settings;
  problems: string[]; // each names its setting; empty when every value is good
}

/** Parses every setting of `env`; `env` may hold anything else too (bindings, secrets). */
export function parseSettings(env: object): Parsed {
  const raw = env as Record<string, unknown>;
  const problems: string[] = [];
  const out: Record<string, Value> = {};
  for (const [key, spec] of Object.entries(SETTINGS) as [string, Spec<Value>][]) {
    const r = parseOne(spec, raw[spec.env]);
    if (typeof r === 'object' && r !== null && 'problem' in r) {
      problems.push(`${spec.env}: ${r.problem}`);
      out[key] = spec.default;
    } else {
      out[key] = r as Value;
    }
  }
  // RUNTIME_CONFIG: only the group versions this server can add (`<group>/<version>`, optionally `=true`/`=false`).
  const unknown = (out.runtimeConfig as readonly string[]).filter((v) => !OPTIONAL_API_VERSIONS.includes(v.replace(/=\s*(true|false)$/i, '').trim()));
  if (unknown.length) {
    problems.push(`RUNTIME_CONFIG: ${unknown.map((v) => JSON.stringify(v)).join(', ')} not known; known: ${OPTIONAL_API_VERSIONS.join(', ')}`);
    out.runtimeConfig = [];
  }
  return { settings: out as Settings, problems };
}

/** The defaults, as if the environment set nothing (tests, tools). */
export const DEFAULT_SETTINGS: Settings = parseSettings({}).settings;

/** `DEFAULT_SETTINGS` with some values replaced (tests). */
export function settingsWith(overrides: Partial<Settings>): Settings {
  return { ...DEFAULT_SETTINGS, ...overrides };
}

function parseOne(spec: Spec<Value>, value: unknown): Value | { problem: string } {
  if (value === undefined || value === null) return spec.default;
  if (typeof value !== 'string') return { problem: `must be a string, not ${typeof value}` };
  const text = value.trim();
  switch (spec.kind) {
    case 'boolean': {
      const t = text.toLowerCase();
      if (t === 'true' || t === 'on') return true;
      if (t === 'false' || t === 'off' || t === '') return false;
      return { problem: `must be true, false, on or off, not ${JSON.stringify(value)}` };
    }
    case 'list':
      return text.split(',').map((s) => s.trim()).filter(Boolean);
    case 'string':
      return text === '' ? spec.default : text;
    default: {
      if (text === '') return spec.default;
      const whole = spec.kind !== 'rate';
      const shape = whole ? /^[+-]?\d+$/ : /^[+-]?(\d+\.?\d*|\.\d+)$/;
      const n = Number(text);
      if (!shape.test(text) || !Number.isFinite(n)) {
        return { problem: `must be ${whole ? 'a whole number' : 'a number'}${unit(spec)}, not ${JSON.stringify(value)}` };
      }
      if (n < spec.min! || n > spec.max!) return { problem: `must be between ${spec.min} and ${spec.max}${unit(spec)}, not ${text}` };
      return n;
    }
  }
}

function unit(spec: Spec<Value>): string {
  return spec.kind === 'seconds' ? ' (seconds)' : spec.kind === 'bytes' ? ' (bytes)' : spec.kind === 'rate' ? ' (per second)' : '';
}

/** One row per setting for docs/configuration.md: name, kind, default, bounds, meaning. */
export function settingsRows(): { env: string; kind: string; default: string; range: string; doc: string }[] {
  return (Object.values(SETTINGS) as Spec<Value>[]).map((s) => ({
    env: s.env,
    kind: s.kind,
    default: Array.isArray(s.default) ? (s.default.length ? s.default.join(',') : '(empty)') : String(s.default),
    range: s.min !== undefined ? `${s.min} – ${s.max}` : '',
    doc: s.doc,
  }));
}

// One parse per environment object: a Worker isolate or a Durable Object sees one environment for its life.
const parsedByEnv = new WeakMap<object, Parsed>();

/** The settings of `env`, parsed once (cached per environment object). */
export function settingsOf(env: object): Parsed {
  let parsed = parsedByEnv.get(env);
  if (!parsed) {
    parsedByEnv.set(env, (parsed = parseSettings(env)));
    // The APIs this process serves (kube's --runtime-config): every entry point reads its settings here first.
    enableApiVersions(parsed.settings.runtimeConfig);
  }
  return parsed;
}

/** Thrown where an entry point cannot serve with its settings; the message names every bad one. */
export class SettingsError extends Error {
  override readonly name = 'SettingsError';
}

/** The settings of `env`, or a SettingsError naming each bad value (Durable Objects start with this). */
export function requireSettings(env: object): Settings {
  const { settings, problems } = settingsOf(env);
  if (problems.length > 0) throw new SettingsError(`edgeplane is not configured: ${problems.join('; ')}`);
  return settings;
}
