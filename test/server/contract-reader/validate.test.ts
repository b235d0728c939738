import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as components from '../../../src/server/contract/components.js';
import { nameOf } from '../../../src/server/contract/kit.js';
import { resolved, sharedParameter } from '../../../src/server/contract-reader/contract.js';
import {
  check,
  checkQuery,
  fieldName,
  paramsValidator,
  querySchema,
} from '../../../src/server/contract-reader/validate.js';
import { ServiceError } from '../../../src/server/ground/errors.js';
import { refused } from '../../helpers/refused.js';

describe('checking values against the route schemas', () => {
  it('names each component as it is exported, so that a check by name is typed by that schema', () => {
    let named = 0;
    for (const [exported, schema] of Object.entries(components)) {
      const name = nameOf(schema);
      if (name === undefined) continue;
      named++;
      // The one exception, left out of the names a check takes (`SchemaName`).
      assert.equal(name, exported === 'ErrorBody' ? 'Error' : exported);
    }
    assert.ok(named > 40, `${named} named schemas`);
  });

  it('answers the value typed when it keeps to its schema, untouched', () => {
    const body = { name: 'a.txt', size: 3, extra: 'kept' };
    assert.equal(check('SignRequest', body), body);
    assert.deepEqual(body, { name: 'a.txt', size: 3, extra: 'kept' });
  });

  it('refuses with 400 invalid_request naming the field as the client spelled it', () => {
    const wrongType = refused(() => check('SignRequest', { name: 'a', size: '3' }));
    assert.equal(wrongType.code, 'invalid_request');
    assert.equal(wrongType.message, 'size must be a whole number.');
    const missing = refused(() => check('SignRequest', { name: 'a' }));
    assert.equal(missing.message, 'size is required.');
    const deep = refused(() =>
      check('SignBatchRequest', {
        files: [
          { name: 'a', size: 1 },
          { name: 'b', size: 1.5 },
        ],
      }),
    );
    assert.equal(deep.message, 'files[1].size must be a whole number.');
    assert.equal(
      refused(() => check('SignRequest', [1])).message,
      'The body must be a JSON object.',
    );
  });

  it('gives another code where the route says so, and the usual one where it declines', () => {
    const refusals = {
      '/size minimum': ({ data }: { data?: unknown }) =>
        data === 0 ? new ServiceError('empty_body') : undefined,
    };
    assert.equal(refused(() => check('SignRequest', { size: 0 }, refusals)).code, 'empty_body');
    assert.equal(
      refused(() => check('SignRequest', { size: -1 }, refusals)).code,
      'invalid_request',
    );
    assert.equal(
      refused(() =>
        check('SignRequest', { size: 1, checksum: 1 }, { '/checksum type': 'too_large' }),
      ).code,
      'too_large',
    );
  });

  it('gives a fault inside a batch entry its index, and only when asked', () => {
    const batch = { uploads: [{ id: 'a' }, { id: 'b', parts: [{ partNumber: 1 }] }] };
    const inEntry = refused(() => check('CompleteBatchRequest', batch, {}, { indexed: 'uploads' }));
    assert.equal(inEntry.code, 'invalid_request');
    assert.equal(inEntry.message, 'uploads[1].parts[0].etag is required.');
    assert.equal(inEntry.extra.index, 1);
    assert.equal(refused(() => check('CompleteBatchRequest', batch)).extra.index, undefined);
    const envelope = refused(() =>
      check('CompleteBatchRequest', { uploads: [] }, {}, { indexed: 'uploads' }),
    );
    assert.equal(envelope.code, 'invalid_request');
    assert.equal(envelope.extra.index, undefined);
    const other = refused(() =>
      check('CompleteBatchRequest', { uploads: [{ id: 1 }] }, {}, { indexed: 'files' }),
    );
    assert.equal(other.extra.index, undefined);
  });

  it("checks a complete's parts by their form", () => {
    assert.deepEqual(check('CompleteRequest', {}), {});
    assert.equal(
      refused(() => check('CompleteRequest', { parts: [{ partNumber: 1.5, etag: 'x' }] })).message,
      'parts[0].partNumber must be a whole number.',
    );
    assert.equal(
      refused(() => check('CompleteRequest', { parts: {} })).message,
      'parts must be an array.',
    );
  });

  it('refuses what each request schema leaves out, naming the field', () => {
    const cases: [string, () => unknown, string][] = [
      ['signed-url', () => check('SignedUrlRequest', { expiresIn: 0 }), 'expiresIn must be >= 1.'],
      [
        'signed-url transform',
        () => check('SignedUrlRequest', { transform: { w: 10, blur: 2 } }),
        'transform has an unknown field, blur.',
      ],
      [
        'upload token',
        () => check('UploadTokenRequest', { maxFile: 1 }),
        'The body has an unknown field, maxFile.',
      ],
      [
        'upload token types',
        () => check('UploadTokenRequest', { types: [] }),
        'types must NOT have fewer than 1 items.',
      ],
      [
        'webhook events',
        () => check('WebhookRequest', { url: 'https://example.com/h', events: ['file.nope'] }),
        'events[0] must be one of "file.ready", "file.deleted", "upload.expired", "file.infected", "file.import_failed".',
      ],
      [
        'webhook url',
        () => check('WebhookRequest', { url: 'not a url' }),
        'url is not of the documented form (must match format "uri").',
      ],
      [
        'import',
        () => check('ImportRequest', { url: 'https://example.com/a', name: 3 }),
        'name must be a string.',
      ],
      [
        'import visibility',
        () => check('ImportRequest', { url: 'https://example.com/a', visibility: 'hidden' }),
        'visibility must be one of "public", "private".',
      ],
    ];
    for (const [what, run, message] of cases) {
      const error = refused(run);
      assert.equal(error.code, 'invalid_request', what);
      assert.equal(error.message, message, what);
    }
  });

  it("takes a batch upload entry's sha256 only as 32 bytes of padded base64", () => {
    const digest = Buffer.alloc(32, 7).toString('base64');
    assert.equal(check('UploadBatchEntry', { size: 1, sha256: digest }).sha256, digest);
    for (const sha256 of ['not-a-digest', digest.slice(0, -1), `${digest.slice(0, 42)}B=`, 7]) {
      assert.equal(
        refused(() => check('UploadBatchEntry', { size: 1, sha256 })).code,
        'invalid_request',
      );
    }
    // The sign's own form comes with it.
    assert.equal(
      refused(() => check('UploadBatchEntry', { size: 'x' })).message,
      'size must be a whole number.',
    );
  });

  it("checks a listing's query from its declared parameters", () => {
    const schema = querySchema<{ cursor?: string; limit?: number }>([
      sharedParameter('Cursor'),
      sharedParameter('Limit'),
    ]);
    assert.deepEqual(checkQuery(schema, {}), {});
    assert.deepEqual(checkQuery(schema, { limit: '', cursor: '', other: 'x' }), {});
    assert.deepEqual(checkQuery(schema, { limit: '100', cursor: '12_ab' }), {
      limit: 100,
      cursor: '12_ab',
    });
    for (const limit of ['0', '101', 'abc', '1.5', '-1', '1e2', ['1', '2']]) {
      assert.equal(
        refused(() => checkQuery(schema, { limit })).code,
        'invalid_request',
        String(limit),
      );
    }
    assert.equal(
      refused(() => checkQuery(schema, { limit: '1.5' })).message,
      'limit must be a whole number.',
    );
    for (const cursor of ['abc', '_abc', '12_', '1_a/b', ['1_a', '2_b']]) {
      assert.equal(
        refused(() => checkQuery(schema, { cursor })).code,
        'invalid_request',
        String(cursor),
      );
    }
  });

  it('spells JSON pointers as fields', () => {
    assert.equal(fieldName(''), 'The body');
    assert.equal(fieldName('/uploads/3/parts/0/etag'), 'uploads[3].parts[0].etag');
    assert.equal(fieldName('/metadata/a~1b'), 'metadata.a/b');
  });

  it('checks path parameters by their pattern: another shape is 404 not_found', () => {
    const validate = paramsValidator({
      properties: { id: resolved({ $ref: '#/components/schemas/Id' }) },
    });
    assert.equal(validate({ id: 'abc_DEF-1' }), true);
    for (const id of ['a\u0000b', 'a b', '', 'x'.repeat(129), 'é']) {
      const answer = validate({ id });
      assert.ok(answer !== true && answer.error.code === 'not_found', JSON.stringify(id));
    }
  });
});
