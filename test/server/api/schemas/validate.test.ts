import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Type } from '@sinclair/typebox';
import {
  CompleteBatchRequest,
  CompleteRequest,
  Id,
  SignBatchRequest,
  SignRequest,
} from '../../../../src/server/api/schemas/components.js';
import { check, fieldName, paramsValidator } from '../../../../src/server/api/schemas/validate.js';
import { ServiceError } from '../../../../src/server/http/errors.js';

function refused(run: () => unknown): ServiceError {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ServiceError);
    return error;
  }
  assert.fail('not refused');
}

describe('checking values against the route schemas', () => {
  it('answers the value typed when it keeps to its schema, untouched', () => {
    const body = { name: 'a.txt', size: 3, extra: 'kept' };
    assert.equal(check(SignRequest, body), body);
    assert.deepEqual(body, { name: 'a.txt', size: 3, extra: 'kept' });
  });

  it('refuses with 400 invalid_request naming the field as the client spelled it', () => {
    const wrongType = refused(() => check(SignRequest, { name: 'a', size: '3' }));
    assert.equal(wrongType.code, 'invalid_request');
    assert.equal(wrongType.message, 'size must be a whole number.');
    const missing = refused(() => check(SignRequest, { name: 'a' }));
    assert.equal(missing.message, 'size is required.');
    const deep = refused(() =>
      check(SignBatchRequest, {
        files: [
          { name: 'a', size: 1 },
          { name: 'b', size: 1.5 },
        ],
      }),
    );
    assert.equal(deep.message, 'files[1].size must be a whole number.');
    assert.equal(refused(() => check(SignRequest, [1])).message, 'The body must be a JSON object.');
  });

  it('gives another code where the route says so, and the usual one where it declines', () => {
    const refusals = {
      '/size minimum': ({ data }: { data?: unknown }) =>
        data === 0 ? new ServiceError('empty_body') : undefined,
    };
    assert.equal(refused(() => check(SignRequest, { size: 0 }, refusals)).code, 'empty_body');
    assert.equal(refused(() => check(SignRequest, { size: -1 }, refusals)).code, 'invalid_request');
    assert.equal(
      refused(() => check(SignRequest, { size: 1, checksum: 1 }, { '/checksum type': 'too_large' }))
        .code,
      'too_large',
    );
  });

  it('gives a fault inside a batch entry its index, and only when asked', () => {
    const batch = { uploads: [{ id: 'a' }, { id: 'b', parts: [{ partNumber: 1 }] }] };
    const inEntry = refused(() => check(CompleteBatchRequest, batch, {}, { indexed: 'uploads' }));
    assert.equal(inEntry.code, 'invalid_request');
    assert.equal(inEntry.message, 'uploads[1].parts[0].etag is required.');
    assert.equal(inEntry.extra.index, 1);
    assert.equal(refused(() => check(CompleteBatchRequest, batch)).extra.index, undefined);
    const envelope = refused(() =>
      check(CompleteBatchRequest, { uploads: [] }, {}, { indexed: 'uploads' }),
    );
    assert.equal(envelope.code, 'invalid_request');
    assert.equal(envelope.extra.index, undefined);
    const other = refused(() =>
      check(CompleteBatchRequest, { uploads: [{ id: 1 }] }, {}, { indexed: 'files' }),
    );
    assert.equal(other.extra.index, undefined);
  });

  it("checks a complete's parts by their form", () => {
    assert.deepEqual(check(CompleteRequest, {}), {});
    assert.equal(
      refused(() => check(CompleteRequest, { parts: [{ partNumber: 1.5, etag: 'x' }] })).message,
      'parts[0].partNumber must be a whole number.',
    );
    assert.equal(
      refused(() => check(CompleteRequest, { parts: {} })).message,
      'parts must be an array.',
    );
  });

  it('spells JSON pointers as fields', () => {
    assert.equal(fieldName(''), 'The body');
    assert.equal(fieldName('/uploads/3/parts/0/etag'), 'uploads[3].parts[0].etag');
    assert.equal(fieldName('/metadata/a~1b'), 'metadata.a/b');
  });

  it('checks path parameters by their pattern: another shape is 404 not_found', () => {
    const validate = paramsValidator(Type.Object({ id: Id }));
    assert.equal(validate({ id: 'abc_DEF-1' }), true);
    for (const id of ['a\u0000b', 'a b', '', 'x'.repeat(129), 'é']) {
      const answer = validate({ id });
      assert.ok(answer !== true && answer.error.code === 'not_found', JSON.stringify(id));
    }
  });
});
