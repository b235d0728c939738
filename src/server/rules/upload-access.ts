import { randomBytes } from 'node:crypto';
import { UPLOAD_TOKEN_HEADER as API_UPLOAD_TOKEN_HEADER } from '../../api/routes.js';
import type { FileRow } from '../db/metadata-store.js';
import type { ServiceConfig } from '../ground/config.js';
import { fail } from '../ground/errors.js';
import { constantTimeEqual, hashKey } from '../ground/secrets.js';
import type { Caller } from './auth.js';

/** The header that carries a pending upload's token (batch complete: each entry's field). */
export const UPLOAD_TOKEN_HEADER = API_UPLOAD_TOKEN_HEADER.toLowerCase();

/**
 * A new upload token: 16 random bytes (128 bits), URL-safe. The caller answers `token`
 * once, in the sign answer; the row keeps only `hash`.
 */
export function newUploadToken(): { token: string; hash: string } {
  const token = randomBytes(16).toString('base64url');
  return { token, hash: hashKey(token) };
}

/**
 * A publishable key is public: anyone can read it from the page. It may start uploads,
 * but only whoever signed an upload may see, continue or finish it, by showing the token
 * its sign answered. Without it (or with another) the upload is answered exactly as an
 * unknown id, so a stranger learns nothing. A secret key needs no token: it is the
 * project's own backend.
 */
export function requireUploadAccess(
  caller: Caller,
  row: Pick<FileRow, 'uploadTokenHash'>,
  token: unknown,
): void {
  if (caller.keyKind === 'secret') return;
  const known = row.uploadTokenHash;
  if (typeof token !== 'string' || known === null || !constantTimeEqual(hashKey(token), known)) {
    fail('not_found', 'No upload with this id.');
  }
}

/**
 * When a pending upload expires: a lifetime after it was signed or after its last part
 * arrived, whichever is later, and never later than its longest lifetime after it was
 * signed (decisions.md: 24 hours, 7 days). Asking for its state does not move it.
 */
export function pendingExpiry(
  config: Pick<ServiceConfig, 'uploadLifetimeSeconds' | 'uploadMaxLifetimeSeconds'>,
  signedAt: number,
  lastPartAt: number | null,
): number {
  const from = Math.max(signedAt, lastPartAt ?? signedAt);
  return Math.min(
    from + config.uploadLifetimeSeconds * 1000,
    signedAt + config.uploadMaxLifetimeSeconds * 1000,
  );
}

/** When part URLs signed now stop working: their own lifetime, never past their upload's. */
export function partUrlExpiry(
  config: Pick<ServiceConfig, 'uploadUrlTtlSeconds'>,
  now: number,
  uploadExpiresAt: number,
): number {
  return Math.min(now + config.uploadUrlTtlSeconds * 1000, uploadExpiresAt);
}
