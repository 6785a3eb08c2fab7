// Core: the two ways a Kubernetes protobuf request body can be refused, as distinct error classes so the
// HTTP layer can map them (415 for a kind we have no schema for, 400 for bytes that do not parse).

/** The body parsed, but its apiVersion/kind has no schema here; the server answers 415 Unsupported Media Type. */
export class UnsupportedProtobufKind extends Error {
  override readonly name = 'UnsupportedProtobufKind';
  constructor(
    readonly apiVersion: string,
    readonly kind: string,
  ) {
    super(`no protobuf schema for ${apiVersion ? `${apiVersion}, ` : ''}Kind=${kind}`);
  }
}

/** The bytes are not a well-formed Kubernetes protobuf envelope or message; the server answers 400 Bad Request. */
export class MalformedProtobuf extends Error {
  override readonly name = 'MalformedProtobuf';
}

/**
 * The body would decode to more than the server accepts (see the limits in decode.ts); the server
 * answers 413 Request Entity Too Large, as for a JSON body over the request size limit.
 */
export class ProtobufTooLarge extends Error {
  override readonly name = 'ProtobufTooLarge';
}
