// Tests: the settings table's rules, one per kind, with the values that used to slip through (zero, negative,
// fractional, words), and that every problem names its setting.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, parseSettings, SETTINGS, settingsRows } from '../../core/settings';

const parse = (env: Record<string, string>) => parseSettings(env);

describe('settings', () => {
  it('gives the defaults for an empty environment, and ignores bindings and secrets', () => {
    const { settings, problems } = parse({ ADMIN_TOKEN: 'x', STORE: {} as unknown as string });
    expect(problems).toEqual([]);
    expect(settings).toEqual(DEFAULT_SETTINGS);
    expect(settings.eventRetentionCount).toBe(10_000);
    expect(settings.controllers).toBe(true);
    expect(settings.replicaLocations).toEqual([]);
  });

  it('reads blank numbers and strings as their defaults', () => {
    const { settings, problems } = parse({ MAX_WATCHERS: '', SERVICE_ACCOUNT_ISSUER: '  ', SIMULATED_NODES: ' 5 ' });
    expect(problems).toEqual([]);
    expect(settings.maxWatchers).toBe(6000);
    expect(settings.serviceAccountIssuer).toBe('https://kubernetes.default.svc.cluster.local');
    expect(settings.simulatedNodes).toBe(5);
  });

  it.each([
    ['REPLICAS_PER_LOCATION', '1.5', 'REPLICAS_PER_LOCATION: must be a whole number, not "1.5"'],
    ['REPLICAS_PER_LOCATION', '0', 'REPLICAS_PER_LOCATION: must be between 1 and 64, not 0'],
    ['MAX_WATCHERS', '0', 'MAX_WATCHERS: must be between 1 and 32768, not 0'],
    ['MAX_WATCHERS', '-5', 'MAX_WATCHERS: must be between 1 and 32768, not -5'],
    ['RATE_LIMIT_QPS', '0', 'RATE_LIMIT_QPS: must be between 0.001 and 1000000 (per second), not 0'],
    ['RATE_LIMIT_QPS', 'fast', 'RATE_LIMIT_QPS: must be a number (per second), not "fast"'],
    ['SIMULATED_NODES', '-1', 'SIMULATED_NODES: must be between 0 and 250, not -1'],
    ['SIMULATED_NODES', '1e3', 'SIMULATED_NODES: must be a whole number, not "1e3"'],
    ['NODE_MONITOR_GRACE_SECONDS', '2.5', 'NODE_MONITOR_GRACE_SECONDS: must be a whole number (seconds), not "2.5"'],
    ['WATCH_BUFFER_BYTES', '10', 'WATCH_BUFFER_BYTES: must be between 16384 and 67108864 (bytes), not 10'],
    ['SERVICE_ACCOUNT_MAX_TOKEN_EXPIRATION_SECONDS', '60', 'SERVICE_ACCOUNT_MAX_TOKEN_EXPIRATION_SECONDS: must be between 3600 and 4294967296 (seconds), not 60'],
    ['CONTROLLERS', 'maybe', 'CONTROLLERS: must be true, false, on or off, not "maybe"'],
    ['EVENT_RETENTION_COUNT', '0x10', 'EVENT_RETENTION_COUNT: must be a whole number, not "0x10"'],
  ])('%s=%j is a problem naming the setting', (name, value, problem) => {
    const { settings, problems } = parse({ [name]: value });
    expect(problems).toEqual([problem]);
    // The entry refuses to serve with problems; the value it would have used is the default, never a guess.
    const key = Object.entries(SETTINGS).find(([, s]) => s.env === name)![0] as keyof typeof settings;
    expect(settings[key]).toEqual(DEFAULT_SETTINGS[key]);
  });

  it('accepts zero where zero means something, and fractional rates', () => {
    const { settings, problems } = parse({ SIMULATED_NODES: '0', EVENT_RETENTION_SECONDS: '0', DEFAULT_TOLERATION_SECONDS: '0', AUTHZ_DECISION_CACHE_BYTES: '0', RATE_LIMIT_QPS: '0.5' });
    expect(problems).toEqual([]);
    expect([settings.simulatedNodes, settings.eventRetentionSeconds, settings.defaultTolerationSeconds, settings.authzDecisionCacheBytes, settings.rateLimitQps]).toEqual([0, 0, 0, 0, 0.5]);
  });

  it.each([['on', true], ['TRUE', true], [' off ', false], ['false', false], ['', false]])('reads boolean %j as %s', (value, expected) => {
    expect(parse({ CONTROLLERS: value }).settings.controllers).toBe(expected);
  });

  it('splits lists on commas, trimmed, dropping empty items', () => {
    expect(parse({ REPLICA_LOCATIONS: ' enam, weur,,apac ,' }).settings.replicaLocations).toEqual(['enam', 'weur', 'apac']);
    expect(parse({ REPLICA_LOCATIONS: '' }).settings.replicaLocations).toEqual([]);
  });

  it('reports every bad setting at once', () => {
    expect(parse({ MAX_WATCHERS: 'x', AUTHZ_SHARDS: '0' }).problems).toHaveLength(2);
  });

  it('has a documentation row per setting', () => {
    expect(settingsRows().map((r) => r.env)).toEqual(Object.values(SETTINGS).map((s) => s.env));
  });
});

describe('docs/configuration.md', () => {
  it('shows the settings table as core/settings.ts defines it (npm run gen)', async () => {
    const { readFileSync } = await import('node:fs');
    const { configurationPage, CONFIGURATION_DOC } = await import('../../scripts/settings-doc');
    expect(readFileSync(CONFIGURATION_DOC, 'utf8') === configurationPage(), 'docs/configuration.md is stale: npm run gen').toBe(true);
  });
});
