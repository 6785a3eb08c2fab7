// Front door: a store's answer as the HTTP response: its code and JSON body (serialized once, in the store), its
// warnings as Warning headers, or its Status.

import { statusResponse, type Result, type Status } from '../../core/status';
import type { StoreReply } from '../../contract/rpc';
import { jsonResponse } from '../response-encoding';

export function reply(result: Result<StoreReply> | { ok: false; status: Status }): Response {
  if (!result.ok) return statusResponse(result.status);
  const res = json(result.value.code, result.value.body);
  // apiserver warning headers: `299 - "<text>"`, one per finding.
  for (const w of result.value.warnings ?? []) res.headers.append('warning', `299 - ${JSON.stringify(w)}`);
  return res;
}

export function json(code: number, body: string): Response {
  return jsonResponse(code, body);
}
