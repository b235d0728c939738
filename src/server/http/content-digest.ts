import { createHash } from 'node:crypto';
import { fail, ServiceError } from '../ground/errors.js';
import type { LocalPartChecksum } from '../storage/local-disk/part-signer.js';

/** The RFC 9530 algorithm key of each digest this store checks, and its length in bytes. */
const ALGORITHMS = {
  sha256: { key: 'sha-256', bytes: 32 },
} as const satisfies Record<LocalPartChecksum, { key: string; bytes: number }>;

/**
 * One member of a `Content-Digest` dictionary (RFC 9530 on RFC 8941): `key=:base64:`, with
 * parameters allowed by the syntax (none is defined, so they are ignored). Base64 is the
 * padded standard alphabet, as RFC 8941 byte sequences are.
 */
const MEMBER =
  /^([a-z*][a-z0-9_.*-]*)=:([A-Za-z0-9+/]*={0,2}):((?:;[a-z*][a-z0-9_.*-]*(?:=[^;,]*)?)*)$/;

/**
 * The digest a part PUT says its bytes have (`Content-Digest: sha-256=:…:`), read before any
 * byte is: no header is `checksum_missing`, as is a header without the required algorithm
 * (other algorithms beside it are ignored); a header that is not a digest dictionary, or a
 * digest of the wrong length or spelling, is `invalid_request`. Node joins a header sent
 * twice with `, `, which is how RFC 8941 combines dictionary lines.
 */
export function expectedDigest(
  header: string | string[] | undefined,
  algorithm: LocalPartChecksum,
): Buffer {
  const { key, bytes } = ALGORITHMS[algorithm];
  const example = `Content-Digest: ${key}=:<base64 of the ${bytes}-byte digest of the part>:`;
  if (header === undefined) {
    fail('checksum_missing', `This upload was signed with checksums: send ${example}.`);
  }
  const text = Array.isArray(header) ? header.join(', ') : header;
  let found: string | undefined;
  for (const member of text.split(',')) {
    const match = MEMBER.exec(member.replace(/^[ \t]+|[ \t]+$/g, ''));
    if (!match) fail('invalid_request', `The Content-Digest header is malformed; send ${example}.`);
    if (match[1] !== key) continue;
    const value = match[2] as string;
    if (found !== undefined && found !== value) {
      fail('invalid_request', `The Content-Digest header gives two different ${key} digests.`);
    }
    found = value;
  }
  if (found === undefined) {
    fail('checksum_missing', `The Content-Digest header has no ${key} digest; send ${example}.`);
  }
  const digest = Buffer.from(found, 'base64');
  // Canonical only: Node's decoder skips what it cannot read, so re-encoding must give back
  // exactly what was sent.
  if (digest.length !== bytes || digest.toString('base64') !== found) {
    fail('invalid_request', `The ${key} digest must be ${bytes} bytes in padded base64.`);
  }
  return digest;
}

/**
 * The source, hashed as it streams by (no second pass over the bytes), failing with
 * `mismatch()` after its last chunk and before it ends if the bytes do not have the
 * expected digest: whoever writes them sees a failed source, so nothing of them is kept.
 */
export async function* verifiedBytes(
  source: AsyncIterable<Buffer>,
  algorithm: LocalPartChecksum,
  expected: Buffer,
  mismatch: () => Error,
): AsyncGenerator<Buffer> {
  const hash = createHash(algorithm);
  for await (const chunk of source) {
    hash.update(chunk);
    yield chunk;
  }
  if (!hash.digest().equals(expected)) throw mismatch();
}

/** A part's bytes checked against its `Content-Digest` (`verifiedBytes`): never whole if damaged. */
export function verifyDigest(
  source: AsyncIterable<Buffer>,
  algorithm: LocalPartChecksum,
  expected: Buffer,
  partNumber: number,
): AsyncGenerator<Buffer> {
  return verifiedBytes(
    source,
    algorithm,
    expected,
    () =>
      new ServiceError(
        'checksum_mismatch',
        `Part ${partNumber} does not match its ${ALGORITHMS[algorithm].key} digest: its bytes were damaged on the way, and it was not stored. Send it again.`,
      ),
  );
}
