// Core: autoscaling/v1 HorizontalPodAutoscaler as a view over the autoscaling/v2 store (./view.ts). The conversion
// is structural (core/autoscaling/hpa-v1.ts: targetCPUUtilizationPercentage ↔ a cpu metric, the rest kept in
// annotations), so a JSON, merge or strategic patch cannot be renamed into v2 terms: it is applied to the object as
// v1 shows it, as kube's patcher converts the live object to the request's version first (rest/patch.go);
// a server-side apply configuration is converted field for field (no implicit CPU target).

import { HPA_V1, hpaFromV1, hpaToV1, replyToHpaV1, frameToHpaV1 } from '../autoscaling/hpa-v1';
import type { ApiView } from './view';

type Obj = Record<string, unknown>;

function fromStorage(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const obj = value as Obj;
  if (obj.kind === 'HorizontalPodAutoscalerList' || obj.kind === 'Table') return JSON.parse(replyToHpaV1(JSON.stringify(obj)));
  return hpaToV1(obj);
}

function partialToStorage(text: string): string {
  try {
    const obj = JSON.parse(text) as Obj;
    return obj && typeof obj === 'object' && !Array.isArray(obj) ? JSON.stringify(hpaFromV1(obj, true)) : text;
  } catch {
    return text; // the patch decoder words the error (a YAML apply body is not converted: see patchToStorage's caller)
  }
}

export const HPA_V1_VIEW: ApiView = {
  apiVersion: HPA_V1,
  patchInView: true,
  toStorage: (obj) => hpaFromV1(obj),
  patchToStorage: partialToStorage,
  fromStorage,
  json: (stored) => replyToHpaV1(stored),
  frame: frameToHpaV1,
};
