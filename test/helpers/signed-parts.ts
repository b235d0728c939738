import assert from 'node:assert/strict';
import type { SignResponse } from '../../src/api/types.js';
import type { LocalDiskBlobStore } from '../../src/server/storage/local-disk/local-disk-store.js';
import type { TestService } from './service.js';

type Part = SignResponse['parts'][number];

/** A part's headers with the signature (random to a reader) shown as its shape only. */
export function partHeaders(part: Part | undefined): Record<string, string> {
  const headers = { ...part?.headers };
  const signature = headers['X-Filehost-Signature'];
  if (signature !== undefined) {
    assert.match(signature, /^[A-Za-z0-9_-]{43}$/);
    headers['X-Filehost-Signature'] = '<signature>';
  }
  const expires = headers['X-Filehost-Expires'];
  if (expires !== undefined) {
    // A part URL lives the URL lifetime (an hour by default), never past its upload.
    const at = Number(expires);
    assert.ok(at > Date.now() + 3_000_000 && at <= Date.now() + 3_600_000, expires);
    headers['X-Filehost-Expires'] = '<url expiry>';
  }
  return headers;
}

/** The local store's headers of part `partNumber` of an upload, as `partHeaders` shows them. */
export function sharedUrlHeaders(signed: SignResponse, partNumber: number): Record<string, string> {
  return {
    'X-Filehost-Upload': signed.id,
    'X-Filehost-Part': String(partNumber),
    'X-Filehost-Expires': '<url expiry>',
    'X-Filehost-Signature': '<signature>',
  };
}

/** The part at a URL of its own, as the local store signed parts before they shared one URL. */
export function perPartUrl(service: TestService, signed: SignResponse, partNumber: number): Part {
  const part = signed.parts[partNumber - 1] as Part;
  return (service.service.context.blobs as LocalDiskBlobStore).signer.signedPartUrl({
    uploadId: signed.id,
    partNumber,
    size: part.size,
    type: part.headers['Content-Type'] as string,
    expiresAt: Number(part.headers['X-Filehost-Expires']),
  });
}

/** The bytes of part `partNumber` of `bytes`, as `signed` cut the file. */
export function partSlice(
  bytes: Uint8Array<ArrayBuffer>,
  signed: SignResponse,
  partNumber: number,
): Uint8Array<ArrayBuffer> {
  const start = (partNumber - 1) * signed.partSize;
  return bytes.subarray(start, start + signed.partSize);
}
