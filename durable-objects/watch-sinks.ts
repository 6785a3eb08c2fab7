// Broadcast layer: the two transports a watcher's frames leave by. Both carry the same frames; an HTTP
// stream sends the bytes encoded once per frame, a WebSocket the text, one event per message.

import { frameBytes, type Frame } from '../core/watch-event';
import type { Sink } from '../core/watch-hub';

const NEWLINE = new TextEncoder().encode('\n');

/**
 * A chunked HTTP response body with a bounded buffer. Bytes wait in the stream's queue while the client
 * does not read; past `limitBytes` the sink reports overflow and the hub closes the watcher, so one slow
 * client never holds memory or the object's thread.
 */
export function streamSink(limitBytes: number, onCancel: () => void): { sink: Sink; body: ReadableStream<Uint8Array> } {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  let wake: (() => void)[] = [];
  const queued = () => -(controller.desiredSize ?? 0);
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
      controller.enqueue(frameBytes(frame));
      return true;
    },
    full: () => queued() > limitBytes / 2,
    // A blank line between events: clients' JSON decoders skip whitespace. Writing it is how a stream
    // learns that its client has gone (then cancel runs and the watcher is dropped).
    heartbeat() {
      if (!closed && queued() === 0) controller.enqueue(NEWLINE);
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

/** A hibernatable WebSocket. workerd exposes no bufferedAmount, so overflow shows only as a failed send. */
export function socketSink(ws: WebSocket): Sink {
  return {
    full: () => false,
    drained: () => Promise.resolve(true),
    send(frame: Frame): boolean {
      try {
        ws.send(frame.text);
        return true;
      } catch {
        return false;
      }
    },
    close() {
      try {
        ws.close(1000, 'watch closed');
      } catch {
        // already closed by the client
      }
    },
  };
}
