import { createHmac } from 'node:crypto';
import { ID_PATTERN, routes, serviceRoutes } from '../../../api/routes.js';
import type { SignedPart } from '../../../api/types.js';
import { constantTimeEqual } from '../../ground/secrets.js';

/** The one digest this store checks (`Content-Digest: sha-256=:…:`, RFC 9530). */
export type LocalPartChecksum = 'sha256';

export interface PartToSign {
  uploadId: string;
  partNumber: number;
  size: number;
  type: string;
  expiresAt: number;
  /**
   * `sha256`: the PUT must carry the digest of its bytes. Signed, so a credential that
   * requires it cannot be made into one that does not. Absent or null: no digest required,
   * and the signature is the one issued before checksums existed.
   */
  checksum?: LocalPartChecksum | null;
}

export type SignatureCheck = 'valid' | 'invalid' | 'expired';

/**
 * The one URL every part of every upload is PUT to (the API's "part URLs that browsers
 * can reuse"): a browser caches a preflight per URL, so one URL costs one preflight for a
 * whole page of files. What addresses and authorizes the part travels in these headers.
 */
export const SHARED_PART_PATH = serviceRoutes.sharedPart();

/** The headers of a part PUT to `SHARED_PART_PATH`, besides its `Content-Type`. */
export const PART_HEADERS = {
  upload: 'X-Filehost-Upload',
  part: 'X-Filehost-Part',
  expires: 'X-Filehost-Expires',
  signature: 'X-Filehost-Signature',
} as const;

/**
 * Sent, and signed, with the credential of a part whose upload was signed with checksums
 * (the value: the digest required). Not in `PART_HEADERS`: a part without it is valid.
 */
export const CHECKSUM_REQUIREMENT_HEADER = 'X-Filehost-Checksum';

/** A part's identity and credential as a PUT to `SHARED_PART_PATH` carries them. */
export interface PartCredential {
  uploadId: string;
  partNumber: number;
  expiresAt: number;
  signature: string;
  /** The digest the credential says the PUT must carry (the signature covers it). */
  checksum: LocalPartChecksum | null;
}

/** The only spellings each header may have: no sign, no leading zero, no padding. */
const CANONICAL = {
  part: /^[1-9]\d{0,4}$/,
  expires: /^[1-9]\d{0,15}$/,
  signature: /^[A-Za-z0-9_-]{43}$/,
  checksum: /^sha256$/,
};

/**
 * Which form a signature was made for. The two forms sign the same facts; the tag keeps a
 * signature valid in the one form it was issued in, so no credential has two spellings.
 */
type Scheme = 'url' | 'headers';

/**
 * Signed parts of the local-disk store: everything the PUT may not change (method, upload,
 * part, length, content type, expiry) is inside the HMAC. Parts are signed for the shared
 * URL with the credential in headers (`signedPart`); URLs unique to each part
 * (`signedPartUrl`, the credential in the query) were issued before and stay valid.
 */
export class PartSigner {
  readonly #secret: Buffer;
  readonly #apiUrl: () => string;

  /** `apiUrl` is read at signing time: with port 0 it is known only once the API is bound. */
  constructor(secret: Buffer, apiUrl: () => string) {
    this.#secret = secret;
    this.#apiUrl = apiUrl;
  }

  /** The part as a sign response lists it: the shared URL, the credential in its headers. */
  signedPart(part: PartToSign): SignedPart {
    return {
      partNumber: part.partNumber,
      size: part.size,
      method: 'PUT',
      url: `${this.#apiUrl()}${SHARED_PART_PATH}`,
      headers: {
        'Content-Type': part.type,
        [PART_HEADERS.upload]: part.uploadId,
        [PART_HEADERS.part]: String(part.partNumber),
        [PART_HEADERS.expires]: String(part.expiresAt),
        [PART_HEADERS.signature]: this.#signature('headers', part),
        ...(part.checksum ? { [CHECKSUM_REQUIREMENT_HEADER]: part.checksum } : {}),
      },
    };
  }

  /** The part at a URL of its own (the credential in the query), as issued before. */
  signedPartUrl(part: PartToSign): SignedPart {
    return {
      partNumber: part.partNumber,
      size: part.size,
      method: 'PUT',
      url: `${this.#apiUrl()}${canonicalPartUrl(part, this.#signature('url', part))}`,
      headers: { 'Content-Type': part.type },
    };
  }

  /**
   * Reads the credential of a PUT to the shared URL from its headers (as Node hands them
   * over, lower-cased; a header sent twice is refused before any route runs). Null when one
   * is missing or not in its canonical spelling: `01`, `+1`, ` 1` padding inside, an id of
   * another alphabet all mean "not a credential we issued".
   */
  readCredential(headers: Record<string, string | string[] | undefined>): PartCredential | null {
    const value = (name: string) => {
      const found = headers[name.toLowerCase()];
      return typeof found === 'string' ? found : undefined;
    };
    const uploadId = value(PART_HEADERS.upload);
    const partNumber = value(PART_HEADERS.part);
    const expiresAt = value(PART_HEADERS.expires);
    const signature = value(PART_HEADERS.signature);
    const checksum = value(CHECKSUM_REQUIREMENT_HEADER);
    if (
      uploadId === undefined ||
      !ID_PATTERN.test(uploadId) ||
      partNumber === undefined ||
      !CANONICAL.part.test(partNumber) ||
      expiresAt === undefined ||
      !CANONICAL.expires.test(expiresAt) ||
      signature === undefined ||
      !CANONICAL.signature.test(signature) ||
      (checksum !== undefined && !CANONICAL.checksum.test(checksum))
    ) {
      return null;
    }
    return {
      uploadId,
      partNumber: Number(partNumber),
      expiresAt: Number(expiresAt),
      signature,
      checksum: checksum === undefined ? null : (checksum as LocalPartChecksum),
    };
  }

  /**
   * Checks a credential read by `readCredential` against the part it names. The signature is
   * checked before the expiry, so a forged expiry reads as forged, not as expired.
   */
  checkCredential(
    part: Omit<PartToSign, 'expiresAt' | 'checksum'>,
    credential: PartCredential,
    now: number,
  ): SignatureCheck {
    if (credential.uploadId !== part.uploadId || credential.partNumber !== part.partNumber) {
      return 'invalid';
    }
    const expected = this.#signature('headers', {
      ...part,
      expiresAt: credential.expiresAt,
      checksum: credential.checksum,
    });
    if (!constantTimeEqual(expected, credential.signature)) return 'invalid';
    return credential.expiresAt < now ? 'expired' : 'valid';
  }

  /**
   * Checks a request's URL (path and query as sent, `request.raw.url`) against the part it
   * addresses. Only the canonical spelling is valid: the one `signedPartUrl` wrote, byte for
   * byte. `parts/01`, a percent-encoded digit, parameters reordered, repeated or added all
   * mean the same to a lenient parser and are still refused, so no two URLs carry one
   * signature. The signature is checked before the expiry, so a forged expiry reads as
   * forged, not as expired. `part.checksum` is the requirement the route read from the URL
   * (`urlChecksum`); the URL is valid only if it is signed with exactly that requirement.
   */
  check(part: Omit<PartToSign, 'expiresAt'>, requestUrl: string, now: number): SignatureCheck {
    const query =
      /\?expires=(\d{1,16})(?:&checksum=[a-z0-9]{1,16})?&signature=([A-Za-z0-9_-]{43})$/.exec(
        requestUrl,
      );
    if (!query?.[1] || !query[2]) return 'invalid';
    const expiresAt = Number(query[1]);
    const signature = query[2];
    if (requestUrl !== canonicalPartUrl({ ...part, expiresAt }, signature)) {
      return 'invalid';
    }
    const expected = this.#signature('url', { ...part, expiresAt });
    if (!constantTimeEqual(expected, signature)) return 'invalid';
    return expiresAt < now ? 'expired' : 'valid';
  }

  /**
   * The digest a per-part URL says its PUT must carry (its `checksum` parameter), read
   * before the URL is checked: `check` then refuses the URL unless it was signed with
   * exactly this requirement, so a URL stripped of it is `invalid_signature`.
   */
  urlChecksum(requestUrl: string): LocalPartChecksum | null {
    return /&checksum=sha256&signature=[A-Za-z0-9_-]{43}$/.test(requestUrl) ? 'sha256' : null;
  }

  #signature(scheme: Scheme, part: PartToSign): string {
    const fields = ['PUT', part.uploadId, part.partNumber, part.size, part.type, part.expiresAt];
    // Only when required, so that a part without it keeps the signature it always had.
    if (part.checksum) fields.push(`checksum ${part.checksum}`);
    // The URL form's payload is unchanged, so the URLs issued before stay valid.
    const payload = (scheme === 'url' ? fields : [`PUT ${SHARED_PART_PATH}`, ...fields]).join('\n');
    return createHmac('sha256', this.#secret).update(payload).digest('base64url');
  }
}

/** The one spelling of a part URL's path and query that its signature is valid for. */
function canonicalPartUrl(
  part: Pick<PartToSign, 'uploadId' | 'partNumber' | 'expiresAt' | 'checksum'>,
  signature: string,
): string {
  const checksum = part.checksum ? `&checksum=${part.checksum}` : '';
  return `${routes.part(part.uploadId, part.partNumber)}?expires=${part.expiresAt}${checksum}&signature=${signature}`;
}
