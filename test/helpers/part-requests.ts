import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { Request } from 'playwright-core';

/**
 * What the browser e2e tests read off part PUTs and served files, whichever store holds
 * the parts.
 */

/** A part PUT's number: the local store's header, or S3's `partNumber` (a one-part file: 1). */
export function partNumberOf(request: Request): number {
  const header = request.headers()['x-filehost-part'];
  const query = new URL(request.url()).searchParams.get('partNumber');
  return Number(header ?? query ?? 1);
}

export const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** The SHA-256 of what the CDN serves at `url` (which must answer 200). */
export async function servedHash(url: string): Promise<string> {
  const response = await fetch(url);
  assert.equal(response.status, 200);
  return sha256(new Uint8Array(await response.arrayBuffer()));
}
