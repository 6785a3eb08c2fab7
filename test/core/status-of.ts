// Test helper: the Status a call throws (as a StatusError); fails the test if it throws nothing.
import { StatusError, type Status } from '../../core/status';

export function statusOf(fn: () => unknown): Status {
  try {
    fn();
  } catch (e) {
    if (e instanceof StatusError) return e.status;
    throw e;
  }
  throw new Error('expected a Status error');
}
