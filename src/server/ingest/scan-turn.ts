import type { FileRow } from '../db/metadata-store.js';
import type { ScanTurn } from './clamd.js';

/**
 * Scans of one client address's anonymous uploads (the publishable key without a token)
 * under way at once, per instance (decisions.md, "Scanning is bounded and fair"): two keep
 * a visitor's own files moving while leaving the other places to everyone else.
 */
export const ANONYMOUS_SCANS_PER_ADDRESS = 2;

/**
 * Whose turn a file's scan waits in: an anonymous upload's client address, bounded to
 * `ANONYMOUS_SCANS_PER_ADDRESS`; an upload token's, or the project's for the secret key,
 * bounded only by the instance's concurrency (their owner chose to send them).
 *
 * The address is the row's `anonymousAddress`, the one its per-address limits count by:
 * how addresses are grouped (one IPv6 /64 counts as one address) is decided where that is
 * computed, and applies here through it.
 */
export function scanTurnOf(
  row: Pick<FileRow, 'anonymousAddress' | 'tokenId' | 'projectId'>,
): ScanTurn {
  if (row.anonymousAddress !== null) {
    return { key: `address ${row.anonymousAddress}`, perKey: ANONYMOUS_SCANS_PER_ADDRESS };
  }
  if (row.tokenId !== null) {
    return { key: `token ${row.tokenId}`, perKey: Number.POSITIVE_INFINITY };
  }
  return { key: `project ${row.projectId}`, perKey: Number.POSITIVE_INFINITY };
}
