// Tests: the committed protobuf schema module is exactly what scripts/protobuf-schema.ts makes from the vendored
// .proto files (vendor/kubernetes-proto), so `npm run gen` is the only way it changes.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generatedProtobufSchema, PROTOBUF_SCHEMA_FILE } from '../../../scripts/protobuf-schema';

describe('core/protobuf generated schema', () => {
  it('matches the vendored .proto files', () => {
    expect(readFileSync(PROTOBUF_SCHEMA_FILE, 'utf8') === generatedProtobufSchema(), 'schema.generated.ts is stale: npm run gen').toBe(true);
  });
});
