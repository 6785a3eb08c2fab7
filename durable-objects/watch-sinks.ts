// Broadcast layer: the two transports a watcher's frames leave by. Both carry the same frames; an HTTP
// stream sends the bytes encoded once per frame, a WebSocket the text: one event per message, or for clients
// that opted in (MULTI_EVENT_PROTOCOL) the events of one turn in one message.

import { frameBytes, type Frame, type FrameJoin } from '../core/watch/event';
import type { Sink } from '../core/watch/hub';
import { failpointSleep } from '../contract/failpoints';

const NEWLINE = new TextEncoder().encode('\n');

/**
 * Coalesces HTTP stream writes: frames sent to a stream within one turn go out as one chunk at the next
 * timer turn. workerd's cost is per chunk, not per byte (measured ~35 µs per chunk per stream), so
 * events from concurrent writes cost one chunk per watcher instead of one each. One per Durable
 * Object, since a timer may only touch streams of its own object.
 */
export class StreamFlusher {
  private readonly pending = new Set<() => void>();
  private scheduled = false;
  errors = 0; // flushes that threw: counted in /metrics as sink errors

  schedule(flush: () => void): void {
    this.pending.add(flush);
    if (this.scheduled) return;
    this.scheduled = true;
    setTimeout(() => this.run(), 0);
  }

  private run(): void {
    this.scheduled = false;
    const flushes = [...this.pending];
    this.pending.clear();
    // One stream that throws must not keep the others' frames in their queues.
    for (const f of flushes) {
      try {
        f();
      } catch (e) {
        this.errors++;
        console.error('watch stream flush failed', e);
      }
    }
  }
}

/**
 * A chunked HTTP response body with a bounded buffer. Bytes wait in the stream's queue while the client
 * does not read; past `limitBytes` the sink reports overflow and the hub closes the watcher, so one slow
 * client never holds memory or the object's thread.
 */
export function streamSink(limitBytes: number, onCancel: () => void, flusher: StreamFlusher): { sink: Sink; body: ReadableStream<Uint8Array> } {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  let wake: (() => void)[] = [];
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const queued = () => -(controller.desiredSize ?? 0) + pendingBytes;
  const flush = () => {
    if (closed || pending.length === 0) return;
    let chunk = pending[0];
    if (pending.length > 1) {
      chunk = new Uint8Array(pendingBytes);
      let offset = 0;
      for (const p of pending) {
        chunk.set(p, offset);
        offset += p.byteLength;
      }
    }
    pending = [];
    pendingBytes = 0;
    try {
      controller.enqueue(chunk);
    } catch (e) {
      // The stream errored under us (client gone): drop the watcher, then report it.
      closed = true;
      onCancel();
      throw e;
    }
  };
  const body = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
      },
      // Called when the client has taken everything queued: a paused replay may go on.
      pull() {
        const w = wake;
        wake = [];
        for (const f of w) f();
      },
      cancel() {
        closed = true;
        onCancel();
      },
    },
    { highWaterMark: 0, size: (chunk) => chunk.byteLength },
  );
  const sink: Sink = {
    send(frame: Frame): boolean {
      if (closed || queued() > limitBytes) return false;
      const bytes = frameBytes(frame);
      if (pending.length === 0) flusher.schedule(flush);
      pending.push(bytes);
      pendingBytes += bytes.byteLength;
      return true;
    },
    full: () => queued() > limitBytes / 2,
    // A blank line between events: clients' JSON decoders skip whitespace. Writing it is how a stream
    // learns that its client has gone where the runtime notices only on a write (workerd locally): then
    // cancel runs, or the request's signal aborts, and the watcher is dropped. A full watch-quota bound
    // sends it too, to the watches it counts (core/watch/quota.ts).
    heartbeat() {
      if (closed || queued() !== 0) return;
      try {
        controller.enqueue(NEWLINE);
      } catch {
        closed = true;
        onCancel();
      }
    },
    drained(timeoutMs: number): Promise<boolean> {
      if (closed) return Promise.resolve(false);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        wake.push(() => {
          clearTimeout(timer);
          resolve(!closed);
        });
      });
    },
    close() {
      if (closed) return;
      flush();
      closed = true;
      try {
        controller.close();
      } catch {
        // already errored by a client disconnect
      }
    },
  };
  return { sink, body };
}

/**
 * How a WebSocket watcher shows that it still reads. workerd exposes no bufferedAmount (workerd#988) and
 * cannot send protocol pings, so what a client does not read queues in the runtime without bound and
 * nothing says so. Instead each socket may have at most `budgetBytes` sent since the client was last
 * heard from: any message it sent (a "ping", handled by the object and not answered). Past the
 * budget with nothing heard, the watcher is closed like an overflowing HTTP stream: a stalled client holds
 * at most the budget, and a client that reads and never sends resumes from its last revision each time.
 */
export interface SocketBudget {
  budgetBytes: number;
  lastHeard(ws: WebSocket): number; // ms since epoch, 0 if never
  stalled(): void; // counts a socket closed for it
  closed(ws: WebSocket): void; // the hub closed this watcher: forget the socket
}

// A multi-event message holds at most this much (more frames wait for the next message); one frame larger than
// this still goes alone, as it would one event per message.
export const MULTI_EVENT_MESSAGE_BYTES = 64 * 1024;

export const plainJoin: FrameJoin = (frames) => {
  let text = '';
  for (const f of frames) text += f.text;
  return text;
};

/**
 * A hibernatable WebSocket within its send budget: one event per message (kube clients), or with `multi` the
 * frames of one turn as one message of newline-ended lines, sent when the hub flushes. workerd's cost is per
 * message (the profile's native `send`): a burst of events then costs one message per watcher. Classes, not
 * closures: an idle watcher holds one small object, its methods shared.
 */
export function socketSink(ws: WebSocket, budget: SocketBudget, multi = false): Sink {
  return multi ? new MultiEventSocketSink(ws, budget) : new SocketSink(ws, budget);
}

class SocketSink implements Sink {
  private unacked = 0;
  private since = Date.now();

  constructor(protected readonly ws: WebSocket, private readonly budget: SocketBudget) {}

  full(): boolean {
    return false;
  }

  drained(): Promise<boolean> {
    return Promise.resolve(true);
  }

  send(frame: Frame): boolean {
    const size = frameBytes(frame).byteLength; // encoded once per frame, shared by every watcher
    if (this.unacked + size > this.budget.budgetBytes && this.unacked > 0) {
      const heard = this.budget.lastHeard(this.ws);
      if (heard < this.since) {
        this.budget.stalled();
        return false;
      }
      this.unacked = 0;
      this.since = Date.now();
    }
    if (!this.write(frame, size)) return false;
    this.unacked += size;
    return true;
  }

  protected write(frame: Frame, _size: number): boolean {
    try {
      this.ws.send(frame.text);
    } catch {
      return false;
    }
    return true;
  }

  close(): void {
    this.budget.closed(this.ws);
    try {
      this.ws.close(1000, 'watch closed');
    } catch {
      // already closed by the client
    }
  }
}

class MultiEventSocketSink extends SocketSink {
  private pending: Frame[] = [];
  private pendingBytes = 0;

  protected override write(frame: Frame, size: number): boolean {
    if (this.pendingBytes + size > MULTI_EVENT_MESSAGE_BYTES && !this.flush(plainJoin)) return false;
    this.pending.push(frame);
    this.pendingBytes += size;
    return true;
  }

  flush(join: FrameJoin): boolean {
    if (this.pending.length === 0) return true;
    const frames = this.pending; // replaced, never mutated: `join` may keep it to compare with the next watcher's
    this.pending = [];
    this.pendingBytes = 0;
    try {
      this.ws.send(join(frames));
    } catch {
      return false;
    }
    return true;
  }

  override close(): void {
    this.flush(plainJoin); // what the turn held goes before the close, in order
    super.close();
  }
}

const BOOKMARK_PREFIX = '{"type":"BOOKMARK"';

/**
 * Fault tests only (ENABLE_TEST_HOOKS; production sinks are never wrapped): `inner` behind the watch.before-send and
 * watch.before-bookmark failpoints (contract/failpoints.ts). When one fires with sleep(ms), that frame and every
 * later one wait in order for ms, as etcd's SleepBeforeSendWatchResponse holds a watch stream's send loop; at most
 * `limitBytes` wait, past that the watcher is closed as an overflowing one is. A frame that fails after its wait
 * fails the next send, so the hub closes the watcher then.
 */
export function delayableSink(inner: Sink, store: string, limitBytes: number): Sink {
  let held: Frame[] = [];
  let heldBytes = 0;
  let failed = false;
  const release = () => {
    const frames = held;
    held = [];
    heldBytes = 0;
    for (const f of frames) {
      if (failed) return;
      try {
        if (!inner.send(f)) failed = true;
      } catch {
        failed = true;
      }
    }
    // Released after the hub's flush of their turn: a sink that holds frames sends them now.
    try {
      if (!failed && inner.flush && !inner.flush(plainJoin)) failed = true;
    } catch {
      failed = true;
    }
  };
  const sink: Sink = {
    send(frame: Frame): boolean {
      if (failed) return false;
      if (held.length === 0) {
        const point = frame.text.startsWith(BOOKMARK_PREFIX) ? 'watch.before-bookmark' : 'watch.before-send';
        const ms = failpointSleep(point, store);
        if (ms === 0) return inner.send(frame);
        setTimeout(release, ms);
      }
      heldBytes += frameBytes(frame).byteLength;
      if (heldBytes > limitBytes) return false;
      held.push(frame);
      return true;
    },
    full: () => inner.full(),
    drained: (timeoutMs) => inner.drained(timeoutMs),
    close() {
      release(); // what waits goes first, in order, as the transport's own close flushes its queue
      inner.close();
    },
  };
  if (inner.heartbeat) sink.heartbeat = () => { if (held.length === 0) inner.heartbeat!(); };
  if (inner.flush) sink.flush = (join) => inner.flush!(join);
  return sink;
}
