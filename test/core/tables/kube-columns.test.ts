// Every served built-in type's `kubectl get` columns against kube 1.32's printers (test/data/kube-1.32-table-columns.json,
// derived from pkg/printers/internalversion/printers.go AddHandlers and kube-aggregator's APIService table): the
// same column names in the same order; a type kube prints no columns for gets the apiserver's default table.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { groupResource, RESOURCE_TYPES } from '../../../core/registry';
import { tableSpecFor } from '../../../core/tables';

const kube = JSON.parse(readFileSync(join(__dirname, '../../data/kube-1.32-table-columns.json'), 'utf8')).columns as Record<string, string[]>;
// metrics.k8s.io's Tables are metrics-server's (checked in the metrics tests), not printers.go's.
const NOT_KUBE_APISERVER = new Set(['metrics.k8s.io']);

describe('Table columns as kube 1.32 prints them', () => {
  const served = [...new Set(RESOURCE_TYPES.filter((t) => !NOT_KUBE_APISERVER.has(t.group)).map((t) => groupResource(t)))];
  it.each(served)('%s', (gr) => {
    expect(tableSpecFor(gr).columns.map((c) => c.name)).toEqual(kube[gr] ?? ['Name', 'Created At']);
  });
});
