/**
 * Part checksums (issue #19): an upload signed with `checksum: true` names the digest every
 * part PUT must carry, and the storage refuses a part whose bytes do not match it, so bytes
 * damaged on the way are sent again instead of stored. Shared by the service (which checks)
 * and the client (which computes).
 */

/**
 * `sha256`: the local-disk store, RFC 9530 `Content-Digest: sha-256=:<base64>:`.
 * `md5`: S3-compatible stores, `Content-MD5: <base64>`, the one digest every one of them
 * checks (RGW 16 accepts `x-amz-checksum-sha256` but does not check it).
 */
export const PART_CHECKSUMS = ['sha256', 'md5'] as const;
export type PartChecksum = (typeof PART_CHECKSUMS)[number];

/** The request header that carries a part's digest, by algorithm. */
export const CHECKSUM_HEADER = {
  sha256: 'Content-Digest',
  md5: 'Content-MD5',
} as const satisfies Record<PartChecksum, string>;

/** The header value for a part whose digest (the raw bytes, base64) is `digestBase64`. */
export function checksumHeaderValue(algorithm: PartChecksum, digestBase64: string): string {
  return algorithm === 'sha256' ? `sha-256=:${digestBase64}:` : digestBase64;
}
