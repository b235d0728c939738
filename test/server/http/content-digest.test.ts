import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { checksumHeaderValue } from '../../../src/api/checksum.js';
import { ServiceError } from '../../../src/server/ground/errors.js';
import { expectedDigest, verifyDigest } from '../../../src/server/http/content-digest.js';

/** The error code `expectedDigest` throws for a header, or the digest it reads. */
function read(header: string | undefined): string {
  try {
    return expectedDigest(header, 'sha256').toString('base64');
  } catch (error) {
    assert.ok(error instanceof ServiceError, String(error));
    return error.code;
  }
}

describe('Content-Digest of a part PUT (RFC 9530)', () => {
  it('reads back every digest the client writes (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        const base64 = Buffer.from(bytes).toString('base64');
        return read(checksumHeaderValue('sha256', base64)) === base64;
      }),
      { seed: 19, numRuns: 500 },
    );
  });

  it('answers any other string with a documented 400, never with anything else (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), (header) => {
        const outcome = read(header);
        return ['invalid_request', 'checksum_missing'].includes(outcome) || outcome.length === 44;
      }),
      { seed: 20, numRuns: 2000 },
    );
  });

  it('says missing for no header or no sha-256 member, malformed for the rest', () => {
    const digest = createHash('sha256').update('x').digest('base64');
    assert.equal(read(undefined), 'checksum_missing');
    assert.equal(read(`sha-512=:${Buffer.alloc(64).toString('base64')}:`), 'checksum_missing');
    assert.equal(read(`sha-256=:${digest}:`), digest);
    assert.equal(read(` sha-256=:${digest}:;x=1 ,\tmd5=:AAAA: `), digest);
    for (const malformed of ['', ',', 'sha-256', `sha-256="${digest}"`, `sha-256=:${digest}`]) {
      assert.equal(read(malformed), 'invalid_request', malformed);
    }
  });

  it('fails the stream at its end when the bytes do not match, after passing them on', async () => {
    const chunks = [Buffer.from('hello '), Buffer.from('world')];
    const expected = createHash('sha256').update('hello world').digest();
    async function* source() {
      yield* chunks;
    }
    const passed: Buffer[] = [];
    for await (const chunk of verifyDigest(source(), 'sha256', expected, 1)) passed.push(chunk);
    assert.equal(Buffer.concat(passed).toString(), 'hello world');
    const wrong = createHash('sha256').update('hello World').digest();
    await assert.rejects(
      (async () => {
        for await (const _ of verifyDigest(source(), 'sha256', wrong, 3)) {
          // drained
        }
      })(),
      (error: unknown) => error instanceof ServiceError && error.code === 'checksum_mismatch',
    );
  });
});
