// The 422 message: one error plain, several in brackets, each distinct error once (ToAggregate), while
// details.causes keeps every cause.
import { describe, expect, it } from 'vitest';
import { invalid } from '../../../core/status';

const a = { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.selector' };
const b = { reason: 'FieldValueInvalid', message: 'Invalid value: -1: must be greater than or equal to 0', field: 'spec.replicas' };

describe('invalid()', () => {
  it('prints one cause plainly', () => {
    expect(invalid('apps', 'Deployment', 'web', [a]).message).toBe('Deployment.apps "web" is invalid: spec.selector: Required value');
  });
  it('brackets several', () => {
    expect(invalid('apps', 'Deployment', 'web', [a, b]).message)
      .toBe('Deployment.apps "web" is invalid: [spec.selector: Required value, spec.replicas: Invalid value: -1: must be greater than or equal to 0]');
  });
  it('lists a repeated error once but keeps every cause', () => {
    const s = invalid('', 'Pod', 'p', [a, a]);
    expect(s.message).toBe('Pod "p" is invalid: spec.selector: Required value');
    expect(s.details?.causes).toEqual([a, a]);
  });
});
