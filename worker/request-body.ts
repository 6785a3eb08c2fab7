// Front door: a write's body as the JSON text the store works with. JSON passes through; YAML is
// converted (core/encoding/yaml-decode); kubectl's typed clients (create namespace, create configmap, auth
// can-i, ...) send Kubernetes protobuf, which is decoded here. Any other media type is 415, with
// the message of apiserver negotiation.NegotiateInputSerializer.

import { badRequest, requestEntityTooLarge, StatusError, unsupportedMediaType } from '../core/status';
import { isProtobufBody, protobufToJson, PROTOBUF_CONTENT_TYPE } from '../core/protobuf/decode';
import { MalformedProtobuf, ProtobufTooLarge, UnsupportedProtobufKind } from '../core/protobuf/errors';
import { checkBodyDepth } from '../core/validation/known-fields';
import { yamlToJson } from '../core/encoding/yaml-decode';

const ACCEPTED_MEDIA_TYPES = ['application/json', 'application/yaml', PROTOBUF_CONTENT_TYPE];

/** `kind` names the endpoint's type in decode errors (e.g. "ConfigMap"). */
export function decodeBody(contentType: string, bytes: Uint8Array, kind = ''): string {
  // mime.ParseMediaType: parameters (charset) do not matter, an empty type means the first, JSON.
  const mediaType = contentType.split(';')[0].trim().toLowerCase() || 'application/json';
  switch (mediaType) {
    case 'application/json':
      return checkDepth(kind, new TextDecoder().decode(bytes));
    case 'application/yaml':
      return yamlToJson(new TextDecoder().decode(bytes), kind);
    case PROTOBUF_CONTENT_TYPE:
      return decodeProtobuf(contentType, bytes);
    default:
      throw new StatusError(unsupportedMediaType(contentType, ACCEPTED_MEDIA_TYPES));
  }
}

function decodeProtobuf(contentType: string, bytes: Uint8Array): string {
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

// A body nested too deep for the walkers is refused here already, with the Status the store would give it
// (core/validation/known-fields.ts parseObjectBody), so it never reaches the store. Patch bodies are read raw
// and checked where the store decodes them (core/patch/patch-body.ts); YAML is converted first and checked as
// JSON by the store.
function checkDepth(kind: string, text: string): string {
  checkBodyDepth(kind, text);
  return text;
}
