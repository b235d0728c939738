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
    return {
      partNumber: part.partNumber,
      size: part.size,
      method: 'PUT',
      url: `${this.#apiUrl()}${canonicalPartUrl(part.uploadId, part.partNumber, part.expiresAt, this.#signature(part))}`,
      headers: { 'Content-Type': part.type },
    };
  }

  /**
   * Checks a request's URL (path and query as sent, `request.raw.url`) against the part it
   * addresses. Only the canonical spelling is valid: the one `signedPart` wrote, byte for
   * byte. `parts/01`, a percent-encoded digit, parameters reordered, repeated or added all
   * mean the same to a lenient parser and are still refused, so no two URLs carry one
   * signature. The signature is checked before the expiry, so a forged expiry reads as
   * forged, not as expired.
   */
  check(part: Omit<PartToSign, 'expiresAt'>, requestUrl: string, now: number): SignatureCheck {
    const query = /\?expires=(\d{1,16})&signature=([A-Za-z0-9_-]{43})$/.exec(requestUrl);
    if (!query?.[1] || !query[2]) return 'invalid';
    const expiresAt = Number(query[1]);
    const signature = query[2];
    if (requestUrl !== canonicalPartUrl(part.uploadId, part.partNumber, expiresAt, signature)) {
      return 'invalid';
    }
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

/** The one spelling of a part URL's path and query that its signature is valid for. */
function canonicalPartUrl(
  uploadId: string,
  partNumber: number,
  expiresAt: number,
  signature: string,
): string {
  return `${routes.part(uploadId, partNumber)}?expires=${expiresAt}&signature=${signature}`;
}
