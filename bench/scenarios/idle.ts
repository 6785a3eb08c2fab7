// Scenario: what `npm start` holds before any client: the RSS of every process it leaves running (npm,
// the gateway's Node process with Miniflare and the dual listener, workerd; a tsx launcher and esbuild
// service until scripts/launch.mjs replaced tsx, and any other process found in the tree),
// some seconds after it started serving (the control loops and simulated nodes running, nobody connected).

import { commandLine } from '../lib/proc';
import { round } from '../lib/stats';
import type { Edgeplane } from '../targets/edgeplane';

export interface IdleProcess {
  pid: number;
  role: string;
  rssMiB: number;
}

export interface IdleResult {
  variant: string;
  secondsAfterStart: number;
  processes: IdleProcess[];
  totalMiB: number;
}

function role(ep: Edgeplane, pid: number, comm: string): string {
  if (pid === ep.gatewayPid) return 'Node: the gateway (Miniflare, the dual listener)';
  if (comm === 'workerd') return 'workerd';
  const cmd = commandLine(pid);
  if (comm === 'esbuild') return cmd.includes('/tsx/') ? 'esbuild service (tsx, loads TypeScript)' : 'esbuild service (scripts/build.ts bundled the Worker)';
  if (cmd.startsWith('npm')) return 'npm';
  if (comm === 'sh') return "sh (npm's script shell)";
  if (cmd.includes('tsx')) return 'Node: tsx launcher';
  return comm;
}

export function idleReading(ep: Edgeplane, settledMs: number): IdleResult {
  const processes = ep.processes().map((p) => ({ pid: p.pid, role: role(ep, p.pid, p.comm), rssMiB: round(p.rssBytes / 2 ** 20) }));
  return { variant: ep.label, secondsAfterStart: round(settledMs / 1000), processes, totalMiB: round(processes.reduce((a, p) => a + p.rssMiB, 0)) };
}

export function describeIdle(r: IdleResult): string {
  return `npm start (${r.variant}) idle ${r.secondsAfterStart} s after start: ${r.totalMiB} MiB RSS (${r.processes.map((p) => `${p.role} ${p.rssMiB}`).join(', ')})`;
}
