import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_BATCH } from '../../../src/api/limits.js';
import { declaredRoute } from '../../../src/server/contract-reader/contract.js';
import {
  declaredBatch,
  jsonBodyCheck,
  queryCheck,
} from '../../../src/server/http/declared-input.js';
import { refused } from '../../helpers/refused.js';

describe("a route's request checked against its declaration", () => {
  it("checks a batch sign's form from its declaration, leaving each entry to the sign's rules", () => {
    const batch = declaredBatch(declaredRoute('signUpload'), 'application/json', 'files');
    const entries = [{}, { size: 0 }, 'not even an object'];
    assert.deepEqual(batch.form({ files: entries }).entries, entries);
    assert.equal(refused(() => batch.form({ files: 'x' })).message, 'files must be an array.');
    assert.equal(
      refused(() => batch.form({ files: [] })).message,
      'files must NOT have fewer than 1 items.',
    );
    const many = Array.from({ length: MAX_BATCH + 1 }, () => ({}));
    assert.equal(
      refused(() => batch.form({ files: many })).message,
      `files must NOT have more than ${MAX_BATCH} items.`,
    );
  });

  it("checks a batch upload's files field as the field it is, and each entry as declared", () => {
    const batch = declaredBatch(declaredRoute('uploadBatch'), 'multipart/form-data', 'files');
    assert.equal(refused(() => batch.form({ name: 'a' })).message, 'files must be an array.');
    assert.deepEqual(batch.form([{ size: 1 }]).entries, [{ size: 1 }]);
    const sha256 = `${'A'.repeat(42)}A=`;
    assert.deepEqual(batch.entry({ size: 1, sha256 }), { size: 1, sha256 });
    assert.equal(refused(() => batch.entry({ size: 1, sha256: 'short' })).code, 'invalid_request');
  });

  it('refuses to build a batch a declaration does not have', () => {
    assert.throws(() => declaredBatch(declaredRoute('importFromUrl'), 'application/json', 'files'));
  });

  it('checks an optional body only when sent, a required one always', () => {
    const optional = jsonBodyCheck(declaredRoute('createSignedUrl'));
    assert.ok(optional);
    assert.equal(optional(undefined), undefined);
    assert.equal(refused(() => optional({ expiresIn: 0 })).code, 'invalid_request');
    const required = jsonBodyCheck(declaredRoute('importFromUrl'));
    assert.ok(required);
    assert.equal(refused(() => required(undefined)).message, 'The body must be a JSON object.');
    assert.equal(jsonBodyCheck(declaredRoute('getFile')), null);
  });

  it('checks the query a route declares, and reads none where it declares none', () => {
    const list = queryCheck(declaredRoute('listFiles'));
    assert.deepEqual(list({ limit: '5', other: 'ignored' }), { limit: 5 });
    assert.equal(refused(() => list({ limit: '1.5' })).code, 'invalid_request');
    assert.deepEqual(queryCheck(declaredRoute('getFile'))({ limit: '1.5' }), {});
  });
});
