// Durable Objects: the preamble of every RPC to a store or a replica, written once. Each serves one resource
// type: know it (a custom type's definition comes from the CRD store first, as of the revision the front door
// forwarded), follow its CRD (a changed schema or columns apply from the next request on), run the call, and
// answer any error as its Status — a Result, or a Status response — never a thrown error across RPC (only an
// error's message survives that: the Status's code would be lost).

import { lookupGroupResource, type ResourceType } from '../core/registry';
import { StatusError, statusOf, statusResponse, type Result } from '../core/status';
import { knowType } from '../contract/crd-types';
import type { Bindings } from '../contract/bindings';

export interface ServedTypeHooks {
  /** The first request named the type: load what serving it needs. */
  first(type: ResourceType, groupResource: string): void;
  /** A custom type's CRD changed: serve the new definition. */
  retype(type: ResourceType): void;
}

export class ServedType {
  private type: ResourceType | undefined;

  constructor(private readonly env: Partial<Pick<Bindings, 'STORE'>>, private readonly hooks: ServedTypeHooks) {}

  /** The type served so far, if a request has named it. */
  get current(): ResourceType | undefined {
    return this.type;
  }

  /** The type of `groupResource`, known as of `crdRevision` (the front door's CRD view) or fresher. */
  async know(groupResource: string, crdRevision?: number): Promise<ResourceType> {
    await knowType(this.env, groupResource, crdRevision);
    return this.resolve(groupResource);
  }

  /** The type, from the registry as this isolate knows it now. */
  resolve(groupResource: string): ResourceType {
    const type = this.type;
    if (type && !type.custom) return type;
    const now = lookupGroupResource(groupResource);
    if (type) {
      if (!now || now === type) return type;
      this.type = now;
      this.hooks.retype(now);
      return now;
    }
    if (!now) throw new Error(`unknown resource type ${groupResource}`);
    this.type = now;
    this.hooks.first(now, groupResource);
    return now;
  }

  /** know, run `fn`, and answer a Result: a StatusError's Status, or 500 for anything else. */
  async result<T>(groupResource: string, crdRevision: number | undefined, fn: (type: ResourceType) => T | Promise<T>): Promise<Result<T>> {
    try {
      return { ok: true, value: await fn(await this.know(groupResource, crdRevision)) };
    } catch (e) {
      return failed(e);
    }
  }

  /** know, run `fn`, and answer its Response, or the error's Status as one. */
  async response(groupResource: string, crdRevision: number | undefined, fn: (type: ResourceType) => Response | Promise<Response>): Promise<Response> {
    try {
      return await fn(await this.know(groupResource, crdRevision));
    } catch (e) {
      return statusResponse(failed(e).status);
    }
  }
}

/** The Durable Objects' one error funnel: the Status of any error, logged when it is a bug rather than an answer. */
export function failed(e: unknown): { ok: false; status: ReturnType<typeof statusOf>; auditAnnotations?: Record<string, string> } {
  if (!(e instanceof StatusError)) console.error('internal error', e);
  // Admission's audit annotations made before a refusal (core/writes/admission.ts) travel with it.
  const auditAnnotations = (e as { auditAnnotations?: Record<string, string> } | null)?.auditAnnotations;
  return auditAnnotations ? { ok: false, status: statusOf(e), auditAnnotations } : { ok: false, status: statusOf(e) };
}

/** A forwarded request's CRD revision header as a number (absent or malformed: none). */
export function crdRevisionOf(value: string | null): number | undefined {
  const n = value === null ? NaN : Number(value);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}
