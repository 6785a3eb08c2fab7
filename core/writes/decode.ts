// Core: a written body as the object a write works on: parsed once (core/validation/known-fields.ts
// parseObjectBody), converted from the request's view to the store's (core/views), checked to be of the type
// (apiVersion, kind), then decoded as kube's decoder does for the type (its strategy: Go-struct decoding with
// fieldValidation, or a CRD schema's pruning and defaulting).

import { asTypedObject, type KubeObject } from '../object-meta';
import { decodeObject, parseObjectBody } from '../validation/known-fields';
import type { DecodeSource } from '../strategies/strategy';
import type { WriteContext } from './types';

// The Scale objects of /scale, decoded against their own schema.
export const SCALE = { group: 'autoscaling', version: 'v1', kind: 'Scale' };

/**
 * A create or update body, parsed and in the store's terms (a Scale body as it is), and its text for the decoder's
 * duplicate-field check unless the view rewrote it (the text then no longer names the fields the object has).
 */
export function parseWrittenBody(ctx: WriteContext, text: string, scale = false): { body: unknown; source: DecodeSource } {
  const body = parseObjectBody(scale ? SCALE.kind : ctx.type.kind, text);
  const view = scale ? undefined : ctx.view;
  if (!view || !body || typeof body !== 'object' || Array.isArray(body) || (body as { apiVersion?: unknown }).apiVersion !== view.apiVersion) {
    return { body, source: { text } };
  }
  return { body: view.toStorage(body as Record<string, unknown>), source: {} };
}

/** `obj` (a parsed body, a patched or applied object) as the type's decoder makes it; `source` words its errors. */
export function decodeWritten(ctx: WriteContext, obj: unknown, source: DecodeSource): KubeObject {
  return ctx.strategy.decode(asTypedObject(ctx.type, obj), ctx.strategyEnv, source);
}

/** A Scale written to /scale, decoded against the Scale schema: wrong types refused, unknown fields by fieldValidation. */
export function decodeScale(ctx: WriteContext, obj: unknown, source: DecodeSource): KubeObject {
  // A body of null decodes, as in Go, to the empty object.
  const out = decodeObject(SCALE, obj as KubeObject, { fieldValidation: ctx.fieldValidation, warnings: ctx.warnings, ...source }) ?? ({} as KubeObject);
  out.metadata ??= {};
  return out;
}
