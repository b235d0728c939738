import type { Static } from '@sinclair/typebox';
import type { ClaimedPart as ClaimedPartSchema } from '../contract/components.js';
import type { ClaimedPart } from '../uploads/complete.js';

/**
 * The parts a complete request lists (`parts`, optional; its form already checked against
 * the schema): none when absent, each only its `partNumber` and `etag`. Read by both
 * complete routes (the single one, and each entry of a batch).
 */
export function claimedParts(
  parts: readonly Static<typeof ClaimedPartSchema>[] | undefined,
): ClaimedPart[] {
  return (parts ?? []).map(({ partNumber, etag }) => ({ partNumber, etag }));
}
