// Tests: protobuf bodies cannot decode to more than a JSON body may be, nor nest past the JSON depth
// limit, and decoding stays linear in the body.
// Heavy bodies (hundreds of thousands of messages): seconds on a busy 2-core machine, so 30 s rather than vitest's 5 s.

import { describe, expect, it } from 'vitest';
import {
  MalformedProtobuf,
  MAX_DECODED_JSON_BYTES,
  MAX_DECODED_MESSAGES,
  ProtobufTooLarge,
  protobufToJson,
} from '../../../core/protobuf/decode';
import { MAX_JSON_DEPTH } from '../../../core/encoding/json-depth';
import { b, envelope, m, newObjectMeta, s, utf8 } from './encode';
import { opGrowth } from '../op-count';

/** A Pod whose containers each carry one long-named string field: ~7 bytes in, ~40 bytes of JSON out. */
function podBomb(containers: number): Uint8Array {
  const one = m(2, s(20, 'a')); // containers[i].terminationMessagePolicy = "a"
  const list = new Uint8Array(one.length * containers);
  for (let i = 0; i < containers; i++) list.set(one, i * one.length);
  return envelope('v1', 'Pod', newObjectMeta('bomb', 'default'), b(2, list));
}

/** A ControllerRevision whose data is another enveloped ControllerRevision, `levels` deep. */
function nestedRevisions(levels: number): Uint8Array {
  let inner = envelope('apps/v1', 'ControllerRevision', newObjectMeta('leaf'));
  for (let i = 1; i < levels; i++) inner = envelope('apps/v1', 'ControllerRevision', m(2, b(1, inner)));
  return inner;
}

describe('protobuf decoding limits', { timeout: 30_000 }, () => {
  it('refuses a body that would decode to more than 3 MiB of JSON with ProtobufTooLarge', () => {
    const body = podBomb(400_000); // 2.8 MB of protobuf
    expect(body.length).toBeLessThan(3 * 1024 * 1024);
    expect(() => protobufToJson(body)).toThrow(ProtobufTooLarge);
    expect(() => protobufToJson(body)).toThrow(`limit is ${MAX_DECODED_JSON_BYTES}`);
  });

  it('refuses more than MAX_DECODED_MESSAGES messages even when the JSON would be small', () => {
    const empty = m(2); // an empty container: 2 bytes, one message
    const list = new Uint8Array(empty.length * (MAX_DECODED_MESSAGES + 1)).map((_, i) => empty[i % 2]);
    expect(() => protobufToJson(envelope('v1', 'Pod', b(2, list)))).toThrow(ProtobufTooLarge);
  });

  it('decodes a large legal body in full', () => {
    const json = protobufToJson(podBomb(20_000));
    const containers = (json.spec as { containers: unknown[] }).containers;
    expect(containers).toHaveLength(20_000);
    expect(containers[19_999]).toEqual({ terminationMessagePolicy: 'a' });
    expect(JSON.stringify(json).length).toBeLessThanOrEqual(MAX_DECODED_JSON_BYTES);
  });

  it('refuses envelopes nested past the JSON depth limit with MalformedProtobuf, not a stack overflow', () => {
    expect(() => protobufToJson(nestedRevisions(1_500))).toThrow(MalformedProtobuf);
    expect(() => protobufToJson(nestedRevisions(1_500))).toThrow(`nested deeper than ${MAX_JSON_DEPTH} levels`);
    // Shallow nesting still decodes.
    const ok = protobufToJson(nestedRevisions(3)) as { data: { data: { metadata: { name: string } } } };
    expect(ok.data.data.metadata.name).toBe('leaf');
  });

  it('refuses embedded raw JSON nested too deep', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const body = envelope('apps/v1', 'ControllerRevision', newObjectMeta('r'), m(2, b(1, utf8(deep))));
    expect(() => protobufToJson(body)).toThrow('embedded raw JSON is nested too deep');
    const fine = envelope('apps/v1', 'ControllerRevision', newObjectMeta('r'), m(2, b(1, utf8('[[1]]'))));
    expect(protobufToJson(fine).data).toEqual([[1]]);
    // The same gate as JSON's: the object (1) and its data field's JSON — 999 more — is exactly 1000 deep.
    const atGate = (n: number) => envelope('apps/v1', 'ControllerRevision', newObjectMeta('r'), m(2, b(1, utf8('['.repeat(n) + ']'.repeat(n)))));
    expect(JSON.stringify(protobufToJson(atGate(MAX_JSON_DEPTH - 1)).data).length).toBe(2 * (MAX_JSON_DEPTH - 1));
    expect(() => protobufToJson(atGate(MAX_JSON_DEPTH))).toThrow('embedded raw JSON is nested too deep');
  });

  it('decodes in linear time: 4x the containers costs 4x the operations', () => {
    const ratio = opGrowth((n) => {
      const body = podBomb(n);
      return () => void protobufToJson(body);
    }, 2_000);
    expect(ratio, `4x the input cost ${ratio.toFixed(2)}x the operations`).toBeLessThan(4.5);
  });
});


describe('protobuf maps', { timeout: 30_000 }, () => {
  it('decodes more scalar map entries than the message limit (each is a string pair, not a message)', () => {
    const n = MAX_DECODED_MESSAGES + 10;
    const entries = Array.from({ length: n }, (_, i) => m(2, s(1, `k${i}`), s(2, '')));
    const total = entries.reduce((sum, e) => sum + e.length, 0);
    const data = new Uint8Array(total);
    let at = 0;
    for (const e of entries) {
      data.set(e, at);
      at += e.length;
    }
    const json = protobufToJson(envelope('v1', 'ConfigMap', newObjectMeta('c', 'default'), data));
    expect(Object.keys(json.data as object)).toHaveLength(n);
  });
});
