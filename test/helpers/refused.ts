import assert from 'node:assert/strict';
import { ServiceError } from '../../src/server/ground/errors.js';

/** The error `run` throws, which must be the service's own (a documented refusal). */
export function refused(run: () => unknown): ServiceError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ServiceError);
    return error;
  }
  assert.fail('not refused');
}
