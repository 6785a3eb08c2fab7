// Core: the protobuf messages only answers need, beside the generated request schemas: list envelopes,
// ListMeta and Status (apimachinery pkg/apis/meta/v1/generated.proto), in the same compact form as
// schema.generated.ts.

import { KINDS } from './schema.generated';

export const RESPONSE_MESSAGES: Record<string, string> = {
  'meta/v1.ListMeta': '1:selfLink:string 2:resourceVersion:string 3:continue:string 4:remainingItemCount:int64:z',
  'meta/v1.Status': '1:metadata:ListMeta 2:status:string 3:message:string 4:reason:string 5:details:StatusDetails 6:code:int32',
  'meta/v1.StatusDetails': '1:name:string 2:group:string 3:kind:string 6:uid:string 4:causes:StatusCause:r 5:retryAfterSeconds:int32',
  'meta/v1.StatusCause': '1:reason:string 2:message:string 3:field:string',
};

/** Every `<Kind>List` of k8s.io/api is `{metadata: ListMeta = 1, items: repeated <Kind> = 2}`. */
export function listMessageSpec(key: string, messages: Record<string, string>): string | undefined {
  if (!key.endsWith('List')) return undefined;
  const item = key.slice(0, -'List'.length);
  if (messages[item] === undefined) return undefined;
  return `1:metadata:meta/v1.ListMeta 2:items:${item.slice(item.lastIndexOf('.') + 1)}:r`;
}

/** The message for an object's apiVersion and kind: a generated kind, its List, or a Status. */
export function messageKeyFor(apiVersion: string, kind: string): string | undefined {
  if (kind === 'Status' && apiVersion === 'v1') return 'meta/v1.Status';
  const direct = KINDS[`${apiVersion}/${kind}`];
  if (direct) return direct;
  if (kind.endsWith('List')) {
    const item = KINDS[`${apiVersion}/${kind.slice(0, -'List'.length)}`];
    if (item) return `${item}List`;
  }
  return undefined;
}
