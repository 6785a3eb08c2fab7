// Core: POST (apiserver registry/generic/registry/store.go Create with rest.BeforeCreate): the body decoded, its
// namespace reconciled with the path's, a generated name, validation, server-set metadata, defaults, managedFields,
// the type's own preparation (core/strategies/), then one ADDED commit — retried with another generated name on a
// collision, as RetryGenerateName does.

import { alreadyExists, generateNameConflict, StatusError } from '../status';
import { fillCreateMeta, reconcileNamespace, validateObject, type KubeObject } from '../object-meta';
import { objectKey } from '../object-key';
import { recordWrite } from '../apply/record-write';
import { decodeWritten, parseWrittenBody } from './decode';
import { checkSize } from './stored';
import { admissionOf, mutate, validate } from './admission';
import type { CreateRequest, WriteContext, WriteResponse, WriteStore } from './types';

// apiserver registry/generic/registry/store.go: retries of a generateName collision (RetryGenerateName).
const GENERATE_NAME_ATTEMPTS = 8;
const GENERATE_NAME_MAX_BASE = 58;

export function create(store: WriteStore, ctx: WriteContext, req: CreateRequest): WriteResponse {
  const { body, source } = parseWrittenBody(ctx, req.body);
  return createObject(store, ctx, req.namespace, decodeWritten(ctx, body, source), !req.managedFieldsAsSent);
}

/** Stores a new object; `track` is false when managedFields were already set (create by apply). */
export function createObject(store: WriteStore, ctx: WriteContext, namespace: string, obj: KubeObject, track: boolean): WriteResponse {
  const { type, strategy } = ctx;
  const env = ctx.strategyEnv;
  reconcileNamespace(type, obj, namespace);
  ctx.guard?.(obj, undefined);
  const m = obj.metadata;
  const generated = !m.name && !!m.generateName;
  if (generated) m.name = m.generateName!.slice(0, GENERATE_NAME_MAX_BASE) + ctx.randomSuffix();
  validateObject(type, obj, strategy.validate(obj, undefined, env));
  fillCreateMeta(ctx, obj);
  strategy.default(obj, undefined, env);
  strategy.prepareForCreate?.(obj, env);
  if (track) recordWrite({ type, now: ctx.now, manager: ctx.manager, view: ctx.view?.apiVersion }, undefined, obj, '');
  // Mutating admission sees the defaulted object; its changes are not the request's fields (./admission.ts).
  const admission = admissionOf(ctx, 'CREATE', m.namespace ?? namespace, '', obj);
  mutate(ctx, admission, generated ? m.generateName : undefined);
  strategy.allocate?.(obj, undefined, env);
  strategy.beforeStore?.(obj, undefined, '', env);
  validate(ctx, admission);
  checkSize(store, obj);
  for (let attempt = 1; ; attempt++) {
    const key = objectKey(m.namespace ?? '', m.name!);
    if (!store.get(key)) return { code: 201, body: store.commit('ADDED', key, obj) };
    if (!generated) throw new StatusError(alreadyExists(type, m.name!));
    if (attempt >= GENERATE_NAME_ATTEMPTS) throw new StatusError(generateNameConflict(type, m.name!));
    m.name = m.generateName!.slice(0, GENERATE_NAME_MAX_BASE) + ctx.randomSuffix();
  }
}
