// Front door: a write's body as the JSON text the store works with. kubectl's typed clients (create
// namespace, create configmap, auth can-i, ...) send Kubernetes protobuf, which is decoded here.

import { badRequest, StatusError, unsupportedMediaType } from '../core/status';
import { isProtobufBody, protobufToJson, PROTOBUF_CONTENT_TYPE } from '../core/protobuf/decode';
import { MalformedProtobuf, UnsupportedProtobufKind } from '../core/protobuf/errors';

export function decodeBody(contentType: string, bytes: Uint8Array): string {
  const mediaType = contentType.split(';')[0].trim().toLowerCase();
  if (mediaType !== PROTOBUF_CONTENT_TYPE) return new TextDecoder().decode(bytes);
  try {
    if (!isProtobufBody(bytes)) throw new MalformedProtobuf('missing the k8s protobuf prefix');
    return JSON.stringify(protobufToJson(bytes));
  } catch (e) {
    if (e instanceof UnsupportedProtobufKind) {
      throw new StatusError(unsupportedMediaType(contentType, ['application/json', 'application/yaml']));
    }
    if (e instanceof MalformedProtobuf) throw new StatusError(badRequest(`error decoding protobuf body: ${e.message}`));
    throw e;
  }
}
