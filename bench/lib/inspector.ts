// Measurement: a small client of workerd's V8 inspector (Chrome DevTools Protocol over a WebSocket). workerd
// lists one target per Worker service at http://127.0.0.1:<inspector port>/json; a Worker's Durable Objects
// run in its isolate, so the user Worker's target ("core:user:<name>") holds the front door and every object.

import WebSocket from 'ws';

export interface InspectorTarget {
  id: string;
  title: string;
  webSocketDebuggerUrl: string;
}

export async function inspectorTargets(port: number): Promise<InspectorTarget[]> {
  const r = await fetch(`http://127.0.0.1:${port}/json`);
  if (!r.ok) throw new Error(`inspector /json answered ${r.status}`);
  return (await r.json()) as InspectorTarget[];
}

/** The user Worker's target (Miniflare names it core:user:<worker name>; unnamed: "core:user:"). */
export async function userWorkerTarget(port: number): Promise<InspectorTarget> {
  const t = (await inspectorTargets(port)).find((x) => x.id.startsWith('core:user:'));
  if (!t) throw new Error('no core:user: target on the inspector');
  return t;
}

export interface HeapUsage {
  usedSize: number; // bytes of live JS objects
  totalSize: number; // bytes V8 has allocated for the heap
  embedderHeapUsedSize: number; // bytes of the runtime's C++ objects on V8's managed heap (cppgc), e.g. API wrappers
}

export interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}

export interface CpuProfile {
  nodes: CpuProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export class InspectorSession {
  private next = 1;
  private readonly pending = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  private readonly listeners = new Map<string, ((params: any) => void)[]>();

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => {
      const msg = JSON.parse(data.toString());
      if (msg.id !== undefined) {
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        if (msg.error) p?.reject(new Error(`${msg.error.message} (${msg.error.code})`));
        else p?.resolve(msg.result);
      } else if (msg.method) {
        for (const f of this.listeners.get(msg.method) ?? []) f(msg.params);
      }
    });
    ws.on('close', () => {
      for (const p of this.pending.values()) p.reject(new Error('inspector closed'));
      this.pending.clear();
    });
  }

  static connect(url: string): Promise<InspectorSession> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: 2 ** 31 - 1 });
      ws.once('open', () => resolve(new InspectorSession(ws)));
      ws.once('error', reject);
    });
  }

  static async user(port: number): Promise<InspectorSession> {
    return InspectorSession.connect((await userWorkerTarget(port)).webSocketDebuggerUrl);
  }

  send<T = any>(method: string, params: Record<string, unknown> = {}, timeoutMs = 120_000): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`inspector ${method} timed out`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  on(method: string, f: (params: any) => void): void {
    this.listeners.set(method, [...(this.listeners.get(method) ?? []), f]);
  }

  off(method: string, f: (params: any) => void): void {
    this.listeners.set(method, (this.listeners.get(method) ?? []).filter((g) => g !== f));
  }

  /**
   * The live heap after a full collection (what the isolate holds, not garbage awaiting collection).
   * workerd never answers HeapProfiler.collectGarbage; a heap snapshot collects first, so one is taken and
   * thrown away.
   */
  async heapAfterGc(): Promise<HeapUsage> {
    await this.snapshot(() => undefined);
    return this.heapUsage();
  }

  async heapUsage(): Promise<HeapUsage> {
    const u = await this.send<HeapUsage>('Runtime.getHeapUsage');
    return { usedSize: u.usedSize, totalSize: u.totalSize, embedderHeapUsedSize: u.embedderHeapUsedSize ?? 0 };
  }

  /** A heap snapshot (.heapsnapshot JSON), taken after a full collection. */
  async heapSnapshot(): Promise<string> {
    const chunks: string[] = [];
    await this.snapshot((c) => chunks.push(c));
    return chunks.join('');
  }

  private async snapshot(onChunk: (chunk: string) => void): Promise<void> {
    const f = (p: { chunk: string }) => onChunk(p.chunk);
    this.on('HeapProfiler.addHeapSnapshotChunk', f);
    try {
      await this.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false, captureNumericValue: false });
    } finally {
      this.off('HeapProfiler.addHeapSnapshotChunk', f);
    }
  }

  /** A CPU profile (.cpuprofile JSON) of the isolate while `during` runs, sampled every `intervalUs`. */
  async cpuProfile<T>(during: () => Promise<T>, intervalUs = 200): Promise<{ profile: CpuProfile; result: T }> {
    await this.send('Profiler.enable');
    await this.send('Profiler.setSamplingInterval', { interval: intervalUs });
    await this.send('Profiler.start');
    const outcome = await during().then((value) => ({ value }), (error: unknown) => ({ error }));
    const { profile } = await this.send<{ profile: CpuProfile }>('Profiler.stop');
    await this.send('Profiler.disable');
    if ('error' in outcome) throw outcome.error;
    return { profile, result: outcome.value };
  }

  close(): void {
    this.ws.close();
  }
}
