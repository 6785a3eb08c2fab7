// Core: conversion strategy None between a CRD's versions (apiextensions conversion/nop_converter.go):
// only apiVersion changes. The store keeps objects in the storage version; a request for another served
// version has its body rewritten on the way in and its reply on the way out.

import { apiVersionOf, type ResourceType } from '../registry';

/** Whether requests for `type` need rewriting (a served version that is not the storage version). */
export function needsConversion(type: ResourceType): boolean {
  return !!type.custom && !type.custom.storage;
}

function storageApiVersion(type: ResourceType): string {
  return apiVersionOf({ group: type.group, version: type.custom!.storageVersion });
}

/** A create/update body in the requested version, as the storage version. */
export function bodyToStorage(type: ResourceType, body: string): string {
  if (!needsConversion(type)) return body;
  let obj: unknown;
  try {
    obj = JSON.parse(body);
  } catch {
    return body; // the store words the decoding error
  }
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return body;
  const o = obj as Record<string, unknown>;
  if (o.apiVersion !== apiVersionOf(type)) return body;
  o.apiVersion = storageApiVersion(type);
  return JSON.stringify(o);
}

/** A reply from the store (object, list or Status) in the requested version. */
export function replyFromStorage(type: ResourceType, body: string): string {
  if (!needsConversion(type)) return body;
  const stored = storageApiVersion(type);
  const wanted = apiVersionOf(type);
  let obj: Record<string, unknown>;
  try {
    obj = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return body;
  }
  if (obj.apiVersion === stored) obj.apiVersion = wanted;
  if (Array.isArray(obj.items)) {
    for (const item of obj.items as Record<string, unknown>[]) if (item?.apiVersion === stored) item.apiVersion = wanted;
  }
  if (Array.isArray(obj.rows)) {
    for (const row of obj.rows as { object?: Record<string, unknown> }[]) if (row.object?.apiVersion === stored) row.object.apiVersion = wanted;
  }
  return JSON.stringify(obj);
}
