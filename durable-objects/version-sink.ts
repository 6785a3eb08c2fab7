// Watch caches: a watcher of another apiVersion than the store's (a CRD's served version, events.k8s.io/v1 over
// core/v1 Events) gets each frame through the view (core/views/view.ts). Frames are serialized once for every
// watcher; only these watchers pay for the view's conversion of each frame.

import type { Sink } from '../core/watch/hub';
import { viewBetween } from '../core/views/view';

export function convertingSink(sink: Sink, from: string, to: string): Sink {
  const view = viewBetween(from, to);
  if (!view) return sink;
  const out: Sink = {
    send: (frame) => {
      const text = view.frame(frame.text);
      return sink.send(text === frame.text ? frame : { text });
    },
    full: () => sink.full(),
    drained: (ms) => sink.drained(ms),
    close: () => sink.close(),
  };
  if (sink.heartbeat) out.heartbeat = () => sink.heartbeat!();
  if (sink.flush) out.flush = (join) => sink.flush!(join);
  return out;
}
