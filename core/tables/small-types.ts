// Core: the tables of the small types: namespaces, configmaps, secrets, serviceaccounts, endpoints,
// endpointslices, leases and events.

import {
  AGE, col, joinHostPort, listWithMore, NAME, NAME_DOC, num, parseTime, since, wide, type TableSpec, type View,
} from './columns';

// ---- small core types ----

export const NAMESPACE_TABLE: TableSpec = {
  columns: [NAME, col('Status', 'string', 'The status of the namespace', (o) => o.status?.phase ?? ''), AGE],
};

const count = (v: unknown): number => (v && typeof v === 'object' ? Object.keys(v).length : 0);

export const CONFIGMAP_TABLE: TableSpec = {
  columns: [
    NAME,
    // printConfigMap counts binaryData too.
    col('Data', 'string', 'Data contains the configuration data.', (o) => count(o.data) + count(o.binaryData)),
    AGE,
  ],
};

export const SECRET_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Type', 'string', 'Used to facilitate programmatic handling of secret data.', (o) => o.type ?? ''),
    col('Data', 'string', 'Data contains the secret data.', (o) => count(o.data)),
    AGE,
  ],
};

export const SERVICEACCOUNT_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Secrets', 'string', 'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.',
      (o) => (Array.isArray(o.secrets) ? o.secrets.length : 0)),
    AGE,
  ],
};

/**
 * printers.go formatEndpoints(endpoints, nil): host:port per address and port, at most 3. Like Go,
 * it builds only the 3 it shows and counts the rest, so an object with thousands of addresses and
 * ports costs their sum, not their product.
 */
function formatEndpoints(o: View): string {
  const subsets: View[] = o.subsets ?? [];
  if (!subsets.length) return '<none>';
  const max = 3;
  const shown: string[] = [];
  let count = 0;
  for (const ss of subsets) {
    const addrs: View[] = ss.addresses ?? [];
    const ports: View[] = ss.ports ?? [];
    // Headless services may have no ports: list bare IPs.
    if (!ports.length) {
      count += addrs.length;
      for (let i = 0; i < addrs.length && shown.length < max; i++) shown.push(addrs[i].ip);
      continue;
    }
    for (const p of ports) {
      count += addrs.length;
      for (let i = 0; i < addrs.length && shown.length < max; i++) shown.push(joinHostPort(addrs[i].ip, p.port));
    }
  }
  return count > max ? `${shown.join(',')} + ${count - max} more...` : shown.join(',');
}

export const ENDPOINTS_TABLE: TableSpec = {
  columns: [NAME, col('Endpoints', 'string', 'The set of all endpoints is the union of all subsets.', formatEndpoints), AGE],
};

export const ENDPOINTSLICE_TABLE: TableSpec = {
  columns: [
    NAME,
    col('AddressType', 'string', 'addressType specifies the type of address carried by this EndpointSlice.',
      (o) => o.addressType ?? ''),
    col('Ports', 'string', 'ports specifies the list of network ports exposed by each endpoint in this slice.',
      (o) => listWithMore(((o.ports ?? []) as View[]).map((p) => (p.port != null ? String(p.port) : p.name ?? '*')), '<unset>')),
    col('Endpoints', 'string', 'endpoints is a list of unique endpoints in this slice.',
      (o) => listWithMore(((o.endpoints ?? []) as View[]).flatMap((e) => e.addresses ?? []), '<unset>')),
    AGE,
  ],
};

export const LEASE_TABLE: TableSpec = {
  columns: [
    NAME,
    col('Holder', 'string', 'holderIdentity contains the identity of the holder of a current lease.',
      (o) => o.spec?.holderIdentity ?? ''),
    AGE,
  ],
};

// ---- events (printEvent, wide) ----

function eventFirstSeen(o: View, now: number): string {
  return parseTime(o.firstTimestamp) !== undefined ? since(o.firstTimestamp, now) : since(o.eventTime, now);
}

function eventLastSeen(o: View, now: number): string {
  if (o.series) return since(o.series.lastObservedTime, now);
  return parseTime(o.lastTimestamp) !== undefined ? since(o.lastTimestamp, now) : eventFirstSeen(o, now);
}

function eventCount(o: View): number {
  if (o.series) return num(o.series.count);
  // Singleton events of the events.k8s.io API leave count unset.
  return num(o.count) || 1;
}

function eventObject(o: View): string {
  const kind = String(o.involvedObject?.kind ?? '').toLowerCase();
  return o.involvedObject?.name ? `${kind}/${o.involvedObject.name}` : kind;
}

function eventSource(o: View): string {
  const component = o.source?.component || o.reportingComponent || '';
  const instance = o.source?.host || o.reportingInstance || '';
  return instance ? `${component}, ${instance}` : component;
}

export const EVENT_TABLE: TableSpec = {
  columns: [
    col('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.', eventLastSeen),
    col('Type', 'string', 'Type of this event (Normal, Warning), new types could be added in the future', (o) => o.type ?? ''),
    col('Reason', 'string', "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.",
      (o) => o.reason ?? ''),
    col('Object', 'string', 'The object that this event is about.', eventObject),
    wide('Subobject', 'string', 'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement.',
      (o) => o.involvedObject?.fieldPath ?? ''),
    wide('Source', 'string', 'The component reporting this event.', eventSource),
    col('Message', 'string', 'A human-readable description of the status of this operation.', (o) => String(o.message ?? '').trim()),
    wide('First Seen', 'string', 'The time at which the event was first recorded.', eventFirstSeen),
    wide('Count', 'string', 'The number of times this event has occurred.', eventCount),
    col('Name', 'string', NAME_DOC, (o) => o.metadata?.name ?? '', { priority: 1, format: 'name' }),
  ],
};
