// Measurement: Linux /proc readings: CPU time and resident memory of the processes under test, the
// machine's busy CPU (to tell when other work on the machine disturbed a figure), machine facts.

import { readFileSync, readdirSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';

let clkTck = 100;
try {
  clkTck = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
} catch {
  // 100 on every Linux this runs on
}
const TICK_MS = 1000 / clkTck;

function statFields(pid: number): string[] | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm may hold spaces and parentheses: fields start after the last ')'.
    return s.slice(s.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** User + system CPU time of a process (all its threads), in ms. */
export function cpuMs(pid: number): number {
  const f = statFields(pid);
  if (!f) return NaN;
  // After comm: state(0) ppid(1) ... utime(11) stime(12)
  return (Number(f[11]) + Number(f[12])) * TICK_MS;
}

export function rssBytes(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** A direct child of `parent` whose command name is `comm` (e.g. Miniflare's workerd). */
export function childPid(parent: number, comm: string): number | undefined {
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const s = readFileSync(`/proc/${p}/stat`, 'utf8');
      const name = s.slice(s.indexOf('(') + 1, s.lastIndexOf(')'));
      const ppid = Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent && name === comm) return Number(p);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/** Machine-wide CPU time (all cores): busy and total, in ms, from /proc/stat. */
export function machineCpuMs(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const idle = v[3] + (v[4] ?? 0);
  const total = v.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: (total - idle) * TICK_MS, total: total * TICK_MS };
}

export interface CpuReading {
  wallMs: number;
  processes: Record<string, number>; // CPU ms per named process over the interval
  machineBusyMs: number;
  foreignMs: number; // busy CPU not spent by the named processes: other work on the machine
  foreignShare: number; // foreignMs / (wall * cores): 0.1 = other work took 10% of the machine
}

/** CPU of named processes over an interval, and how much of the machine other work used meanwhile. */
export class CpuMeter {
  private t0 = 0;
  private m0 = { busy: 0, total: 0 };
  private p0: Record<string, number> = {};

  constructor(private readonly pids: () => Record<string, number | undefined>) {}

  start(): this {
    this.t0 = performance.now();
    this.m0 = machineCpuMs();
    this.p0 = this.read();
    return this;
  }

  stop(): CpuReading {
    const wallMs = performance.now() - this.t0;
    const m1 = machineCpuMs();
    const p1 = this.read();
    const processes: Record<string, number> = {};
    let ours = 0;
    for (const [name, v] of Object.entries(p1)) {
      processes[name] = Math.round(v - (this.p0[name] ?? 0));
      ours += processes[name];
    }
    const machineBusyMs = Math.round(m1.busy - this.m0.busy);
    const foreignMs = Math.max(0, machineBusyMs - ours);
    return { wallMs: Math.round(wallMs), processes, machineBusyMs, foreignMs, foreignShare: Math.round((foreignMs / (wallMs * cpus().length)) * 100) / 100 };
  }

  private read(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [name, pid] of Object.entries(this.pids())) if (pid) out[name] = cpuMs(pid);
    return out;
  }
}

export function machineInfo() {
  const c = cpus();
  let kernel = '';
  try {
    kernel = readFileSync('/proc/sys/kernel/osrelease', 'utf8').trim();
  } catch {
    // not Linux
  }
  let os = '';
  try {
    os = /PRETTY_NAME="([^"]*)"/.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? '';
  } catch {
    // no os-release
  }
  return { cpu: c[0]?.model ?? 'unknown', cores: c.length, memoryGiB: Math.round(totalmem() / 2 ** 30), os, kernel };
}

/** 1-minute load average. */
export function loadAverage(): number {
  try {
    return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  } catch {
    return NaN;
  }
}

export interface ProcessInfo {
  pid: number;
  ppid: number;
  comm: string;
  rssBytes: number;
}

function processInfo(pid: number): ProcessInfo | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const comm = s.slice(s.indexOf('(') + 1, s.lastIndexOf(')'));
    const ppid = Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]);
    return { pid, ppid, comm, rssBytes: rssBytes(pid) };
  } catch {
    return undefined; // gone meanwhile
  }
}

/** `root` and every process below it (children, grandchildren, ...), root first. */
export function processTree(root: number): ProcessInfo[] {
  const all: ProcessInfo[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    const info = processInfo(Number(p));
    if (info) all.push(info);
  }
  const byParent = new Map<number, ProcessInfo[]>();
  for (const p of all) byParent.set(p.ppid, [...(byParent.get(p.ppid) ?? []), p]);
  const top = all.find((p) => p.pid === root);
  if (!top) return [];
  const out: ProcessInfo[] = [top];
  for (let i = 0; i < out.length; i++) out.push(...(byParent.get(out[i].pid) ?? []));
  return out;
}

/** The 1-, 5- and 15-minute load averages (what `uptime` prints). */
export function loadAverages(): number[] {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
  } catch {
    return [];
  }
}

/**
 * Waits until `pid` uses under `share` of one core over a second (e.g. control loops finished reacting to
 * the previous phase), at most `maxMs`; returns the ms waited.
 */
export async function settle(pid: number, maxMs: number, share = 0.1): Promise<number> {
  const t0 = performance.now();
  while (performance.now() - t0 < maxMs) {
    const c0 = cpuMs(pid);
    await new Promise((r) => setTimeout(r, 1000));
    if (!(cpuMs(pid) - c0 > share * 1000)) break;
  }
  return Math.round(performance.now() - t0);
}

/** A process's command line, arguments joined by spaces. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return '';
  }
}
