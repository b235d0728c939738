import type { FileRow } from '../db/metadata-store.js';
import { newId } from '../ground/secrets.js';
import { addressGroup } from '../rate-limit/address-group.js';
import type { Caller } from '../rules/auth.js';

/**
 * What a new file's row takes from the way it arrives (a sign, a one-request upload, an
 * import); everything else a new row holds is the same for all three.
 */
export type NewFileFields = Pick<
  FileRow,
  | 'name'
  | 'mime'
  | 'size'
  | 'status'
  | 'metadata'
  | 'visibility'
  | 'partSize'
  | 'checksum'
  | 'expiresAt'
  | 'uploadTokenHash'
  | 'importState'
> & {
  /** Seconds after `now` at which the file deletes itself; null: never. */
  deleteAfter: number | null;
};

/**
 * The row of a new file of `caller`'s project, made at `now`, as every way in makes it:
 * who it counts against (the upload token that made it, the client address of an
 * anonymous upload) and when it deletes itself are set here once.
 */
export function newFileRow(
  caller: Pick<Caller, 'project' | 'keyKind' | 'token'>,
  address: string,
  now: number,
  fields: NewFileFields,
): FileRow {
  const { deleteAfter, ...given } = fields;
  return {
    ...given,
    id: newId(),
    projectId: caller.project.id,
    createdAt: now,
    storageUploadId: null,
    deletedAt: null,
    completedParts: null,
    deleteAt: deleteAfter === null ? null : now + deleteAfter * 1000,
    tokenId: caller.token?.id ?? null,
    anonymousAddress: caller.keyKind === 'publishable' ? addressGroup(address) : null,
  };
}
