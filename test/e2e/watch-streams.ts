// Test helper: raw watch connections to the gateway over HTTP streaming (node:http) and WebSocket (ws),
// collecting events so tests can wait for them with a bounded timeout instead of sleeping.
import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import { TOKEN, type Running } from './fixtures';

export interface WatchEventMsg {
  type: string;
  object: any;
}

export class EventLog {
  readonly events: WatchEventMsg[] = [];
  messages = 0; // WebSocket messages received (several events each with the multi-event protocol)
  ended = false;
  status = 0;
  private waiters: (() => void)[] = [];

  push(e: WatchEventMsg): void {
    this.events.push(e);
    this.wake();
  }

  end(): void {
    this.ended = true;
    this.wake();
  }

  /** Resolves once `pred` holds; fails with `what` after `timeoutMs`. */
  async until(pred: (events: WatchEventMsg[]) => boolean, what: string, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pred(this.events)) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; got ${this.events.length} events: ${summary(this.events)}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  async untilEnded(what: string, timeoutMs = 15_000): Promise<void> {
    await this.until(() => this.ended, what, timeoutMs);
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}

function summary(events: WatchEventMsg[]): string {
  return events.slice(-5).map((e) => `${e.type}:${e.object?.metadata?.name ?? ''}@${e.object?.metadata?.resourceVersion}`).join(', ');
}

export interface OpenWatch {
  log: EventLog;
  close(): void;
}

/** Feeds a chunked watch response into `log`, one JSON event per line. */
export function collectLines(res: IncomingMessage, log: EventLog): void {
  log.status = res.statusCode ?? 0;
  let buffer = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.trim()) log.push(JSON.parse(line));
    }
  });
  res.on('end', () => log.end());
  res.on('error', () => log.end());
  res.on('close', () => log.end());
}

export function httpWatch(r: Running, path: string, headers: Record<string, string> = {}): Promise<OpenWatch> {
  const log = new EventLog();
  const url = new URL(path, r.gateway.url);
  return new Promise((resolve, reject) => {
    const req: ClientRequest = request(url, { headers: { authorization: `Bearer ${TOKEN}`, ...headers } }, (res) => {
      collectLines(res, log);
      resolve({ log, close: () => req.destroy() });
    });
    req.on('error', (e) => {
      log.end();
      reject(e);
    });
    req.end();
  });
}

/**
 * A WebSocket watch. `ping`: answer each event with "ping" (not answered), showing the
 * server that this client reads, so it is never closed for its send budget (WATCH_SOCKET_BUDGET_BYTES).
 */
export function wsWatch(r: Running, path: string, opts: { protocolAuth?: boolean; headers?: Record<string, string>; ping?: boolean; protocols?: string[] } = {}): Promise<OpenWatch & { protocol: () => string }> {
  const log = new EventLog();
  const url = new URL(path, r.gateway.url.replace('http://', 'ws://'));
  const protocols = opts.protocolAuth
    ? [`base64url.bearer.authorization.k8s.io.${Buffer.from(TOKEN).toString('base64url')}`, ...(opts.protocols ?? ['base64.binary.k8s.io'])]
    : opts.protocols;
  const auth = opts.protocolAuth ? {} : { authorization: `Bearer ${TOKEN}` };
  const ws = new WebSocket(url, protocols, { headers: { ...auth, ...opts.headers } });
  return new Promise((resolve, reject) => {
    ws.on('open', () => {
      log.status = 101;
      resolve({ log, close: () => ws.terminate(), protocol: () => ws.protocol });
    });
    ws.on('message', (data) => {
      const text = data.toString();
      if (text === 'pong') return;
      log.messages++;
      // One event per message, or several newline-ended ones (multi-event protocol): every line is an event.
      for (const line of text.split('\n')) if (line.trim() !== '') log.push(JSON.parse(line));
      if (opts.ping) ws.send('ping');
    });
    ws.on('close', () => log.end());
    ws.on('unexpected-response', (_req, res) => {
      log.status = res.statusCode ?? 0;
      log.end();
      reject(new Error(`websocket upgrade answered ${res.statusCode}`));
    });
    ws.on('error', (e) => {
      log.end();
      reject(e);
    });
  });
}
