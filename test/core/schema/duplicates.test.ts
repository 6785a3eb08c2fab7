// Duplicate fields: found only where Go's strict decoder looks (struct fields, typed map keys), with
// sigs.k8s.io/json's path, and the cheap count check lets bodies without duplicates through.
import { describe, expect, it } from 'vitest';
import { kindNode } from '../../../core/schema/compile';
import { decodeTyped } from '../../../core/schema/decode';
import { duplicateFields } from '../../../core/schema/duplicates';

const POD = kindNode('', 'v1', 'Pod')!;

function duplicates(text: string): string[] {
  const { members } = decodeTyped(POD, JSON.parse(text), true);
  return duplicateFields(text, POD, members);
}

describe('duplicateFields', () => {
  it('finds none in a body without duplicates, keys inside strings notwithstanding', () => {
    expect(duplicates('{"metadata":{"name":"a","annotations":{"x":"\\"name\\": 1, \\"name\\":"}},"spec":{"containers":[{"name":"c"}]}}')).toEqual([]);
  });

  it('reports struct fields and map keys with the indexed path', () => {
    const text = '{"metadata":{"name":"a","name":"b","labels":{"k":"1","k":"2"}},"spec":{"containers":[{"name":"c"},{"name":"d","image":"i","image":"j"}]}}';
    expect(duplicates(text)).toEqual([
      'duplicate field "metadata.name"',
      'duplicate field "metadata.labels.k"',
      'duplicate field "spec.containers[1].image"',
    ]);
  });

  it('ignores duplicates inside unknown fields and raw values, as Go does', () => {
    const text = '{"metadata":{"managedFields":[{"fieldsV1":{"f:a":{},"f:a":{}}}]},"bogus":{"x":1,"x":2}}';
    expect(duplicates(text)).toEqual([]);
  });

  it('reports a top-level duplicate once', () => {
    expect(duplicates('{"kind":"Pod","kind":"Pod","kind":"Pod"}')).toEqual(['duplicate field "kind"']);
  });
});
