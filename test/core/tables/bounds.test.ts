// Tests: table rendering is linear in the object, however its lists are shaped (Go's printers
// have two loops that are not: Endpoints' addresses × ports, and readiness gates × conditions).

import { describe, expect, it } from 'vitest';
import { toTable } from '../../../core/tables/table';
import { lookupGroupResource } from '../../../core/registry';
import { countOps, opGrowth } from '../op-count';

const NOW = Date.parse('2026-07-01T12:00:00Z');
const render = (gr: string, obj: object) => toTable(lookupGroupResource(gr)!, [obj], { now: NOW });
const cell = (gr: string, obj: object, column: string) => {
  const table = render(gr, obj);
  return table.rows[0]!.cells[table.columnDefinitions!.findIndex((c) => c.name === column)];
};
const range = (n: number) => Array.from({ length: n }, (_, i) => i);

const endpoints = (n: number) => ({
  metadata: { name: 'e' },
  subsets: [{ addresses: range(n).map((i) => ({ ip: `10.0.${i >> 8}.${i & 255}` })), ports: range(n).map((i) => ({ port: i + 1 })) }],
});
const pod = (n: number) => ({
  metadata: { name: 'p', labels: Object.fromEntries(range(n).map((i) => [`l${i}`, 'v'])) },
  spec: { containers: range(n).map((i) => ({ name: `c${i}` })), readinessGates: range(n).map((i) => ({ conditionType: `g${i}` })) },
  status: {
    phase: 'Running',
    conditions: range(n).map((i) => ({ type: `g${n - 1 - i}`, status: i % 2 ? 'True' : 'False' })),
    containerStatuses: range(n).map((i) => ({ name: `c${i}`, ready: true, restartCount: 1, state: { running: {} } })),
  },
});

describe('table rendering bounds', () => {
  it('shows 3 endpoints and counts the rest of 20,000 addresses × 20,000 ports without building them', () => {
    let text: unknown;
    const ops = countOps(() => {
      text = cell('core/endpoints', endpoints(20_000), 'Endpoints');
    });
    expect(text).toBe(`10.0.0.0:1,10.0.0.1:1,10.0.0.2:1 + ${20_000 * 20_000 - 3} more...`);
    expect(ops).toBeLessThan(200_000);
  });

  it('counts passed readiness gates with the first condition of each type', () => {
    expect(cell('core/pods', pod(4), 'Readiness Gates')).toBe('2/4');
    const dup = { ...pod(1), status: { conditions: [{ type: 'g0', status: 'False' }, { type: 'g0', status: 'True' }] } };
    expect(cell('core/pods', dup, 'Readiness Gates')).toBe('0/1');
  });

  it.each([
    ['core/pods', pod],
    ['core/endpoints', endpoints],
  ])('renders %s in linear time', (gr, make) => {
    const ratio = opGrowth((n) => {
      const obj = make(n);
      return () => void toTable(lookupGroupResource(gr)!, [obj], { now: NOW, includeObject: 'Object' });
    }, 2_000);
    expect(ratio, `4x the object cost ${ratio.toFixed(2)}x`).toBeLessThan(4.5);
  });
});
