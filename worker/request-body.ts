// Front door: a write's body as the JSON text the store works with. kubectl's typed clients (create
// namespace, create configmap, auth can-i, ...) send Kubernetes protobuf, which is decoded here.

import { badRequest, requestEntityTooLarge, StatusError, unsupportedMediaType } from '../core/status';
import { isProtobufBody, protobufToJson, PROTOBUF_CONTENT_TYPE } from '../core/protobuf/decode';
import { MalformedProtobuf, ProtobufTooLarge, UnsupportedProtobufKind } from '../core/protobuf/errors';
import { jsonDepthError } from '../core/json-depth';
import { patchDecodeError, patchTypeOf } from '../core/patch/patch-body';

export function decodeBody(contentType: string, bytes: Uint8Array): string {
  const mediaType = contentType.split(';')[0].trim().toLowerCase();
  if (mediaType !== PROTOBUF_CONTENT_TYPE) return checkDepth(mediaType, new TextDecoder().decode(bytes));
  try {
    if (!isProtobufBody(bytes)) throw new MalformedProtobuf('missing the k8s protobuf prefix');
    return JSON.stringify(protobufToJson(bytes));
  } catch (e) {
    if (e instanceof UnsupportedProtobufKind) {
      throw new StatusError(unsupportedMediaType(contentType, ['application/json', 'application/yaml']));
    }
    if (e instanceof MalformedProtobuf) throw new StatusError(badRequest(`error decoding protobuf body: ${e.message}`));
    if (e instanceof ProtobufTooLarge) throw new StatusError(requestEntityTooLarge(e.message));
    throw e;
  }
}

// A body nested too deep for the walkers is refused here already, with the Status the store would
// give it (core/writes.ts parseBody, core/patch/patch-body.ts), so it never reaches the store.
// YAML is converted elsewhere and checked as JSON by the store.
function checkDepth(mediaType: string, text: string): string {
  if (mediaType.includes('yaml')) return text;
  const tooDeep = jsonDepthError(text);
  if (!tooDeep) return text;
  const patchType = patchTypeOf(mediaType);
  if (patchType) throw patchDecodeError(patchType, tooDeep);
  throw new StatusError(badRequest(`couldn't get version/kind; json parse error: ${tooDeep}`));
}
