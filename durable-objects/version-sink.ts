// Watch caches: a watcher of a CRD version other than the storage one gets each frame with the object's
// apiVersion rewritten (conversion strategy None, core/crd/versions.ts). Frames are serialized once for
// every watcher; only these watchers pay for one string replacement per frame. Stored objects start with
// their apiVersion (asTypedObject orders it first), so the first occurrence is the object's own; a
// bookmark's object carries only kind and apiVersion.

import type { Sink } from '../core/watch/hub';
import { EVENTS_V1, frameToEventsV1 } from '../core/events-view';
import { frameToHpaV1, HPA_V1, HPA_V2 } from '../core/autoscaling/hpa-v1';

export function convertingSink(sink: Sink, from: string, to: string): Sink {
  // events.k8s.io/v1 over the core/v1 events store renames fields too (core/events-view.ts).
  if (to === EVENTS_V1 && from === 'v1') return mapped(sink, frameToEventsV1);
  // autoscaling/v1 over the autoscaling/v2 HorizontalPodAutoscaler store converts fields (core/autoscaling/hpa-v1.ts).
  if (to === HPA_V1 && from === HPA_V2) return mapped(sink, frameToHpaV1);
  const needle = `"apiVersion":${JSON.stringify(from)}`;
  const replacement = `"apiVersion":${JSON.stringify(to)}`;
  const out: Sink = {
    send: (frame) => sink.send(frame.text.includes(needle) ? { text: frame.text.replace(needle, replacement) } : frame),
    full: () => sink.full(),
    drained: (ms) => sink.drained(ms),
    close: () => sink.close(),
  };
  if (sink.heartbeat) out.heartbeat = () => sink.heartbeat!();
  return out;
}

function mapped(sink: Sink, f: (text: string) => string): Sink {
  const out: Sink = {
    send: (frame) => sink.send({ text: f(frame.text) }),
    full: () => sink.full(),
    drained: (ms) => sink.drained(ms),
    close: () => sink.close(),
  };
  if (sink.heartbeat) out.heartbeat = () => sink.heartbeat!();
  return out;
}
