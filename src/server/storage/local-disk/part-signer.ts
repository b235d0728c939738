import { createHmac } from 'node:crypto';
import { routes } from '../../../api/routes.js';
import type { SignedPart } from '../../../api/types.js';
import { constantTimeEqual } from '../../secrets.js';

export interface PartToSign {
  uploadId: string;
  partNumber: number;
  size: number;
  type: string;
  expiresAt: number;
}

export type SignatureCheck = 'valid' | 'invalid' | 'expired';

/**
 * Signed part URLs of the local-disk store: the URL is the credential, so everything the
 * PUT may not change (method, upload, part, length, content type, expiry) is inside the HMAC.
 */
export class PartSigner {
  readonly #secret: Buffer;
  readonly #apiUrl: () => string;

  /** `apiUrl` is read at signing time: with port 0 it is known only once the API is bound. */
  constructor(secret: Buffer, apiUrl: () => string) {
    this.#secret = secret;
    this.#apiUrl = apiUrl;
  }

  signedPart(part: PartToSign): SignedPart {
    const query = new URLSearchParams({
      expires: String(part.expiresAt),
      signature: this.#signature(part),
    });
    return {
      partNumber: part.partNumber,
      size: part.size,
      method: 'PUT',
      url: `${this.#apiUrl()}${routes.part(part.uploadId, part.partNumber)}?${query}`,
      headers: { 'Content-Type': part.type },
    };
  }

  /** Checks the signature first, so a forged expiry reads as forged, not as expired. */
  check(
    part: Omit<PartToSign, 'expiresAt'>,
    expires: unknown,
    signature: unknown,
    now: number,
  ): SignatureCheck {
    if (typeof expires !== 'string' || typeof signature !== 'string') return 'invalid';
    if (!/^\d{1,16}$/.test(expires)) return 'invalid';
    const expiresAt = Number(expires);
    const expected = this.#signature({ ...part, expiresAt });
    if (!constantTimeEqual(expected, signature)) return 'invalid';
    return expiresAt < now ? 'expired' : 'valid';
  }

  #signature(part: PartToSign): string {
    const payload = [
      'PUT',
      part.uploadId,
      part.partNumber,
      part.size,
      part.type,
      part.expiresAt,
    ].join('\n');
    return createHmac('sha256', this.#secret).update(payload).digest('base64url');
  }
}
