import { MAX_PARTS } from '../../api/limits.js';
import type { FileRecord } from '../../api/types.js';
import type { FileRow } from '../db/metadata-store.js';
import type { PartPlacement } from '../storage/blob-store.js';
import type { CoreContext } from './context.js';
import { fileUrl } from './names.js';

/** The wire form of a visible file row (list items and single records alike). */
export function toFileRecord(ctx: CoreContext, row: FileRow): FileRecord {
  const { importState } = row;
  const importing = importState !== null && row.status === 'pending';
  const failed = importState?.error ?? null;
  return {
    id: row.id,
    name: row.name,
    mime: row.mime,
    // An import not yet ready holds room for the most it may receive; its record says what
    // it knows of the file instead: the declared size, else what has arrived so far.
    size:
      importState !== null && row.status !== 'ready'
        ? (importState.totalBytes ?? importState.receivedBytes)
        : row.size,
    createdAt: row.createdAt,
    status: row.status === 'ready' ? 'ready' : failed ? 'failed' : 'pending',
    visibility: row.visibility,
    url: publicUrl(ctx, row),
    metadata: row.metadata,
    deleteAt: row.deleteAt,
    scannedAt: row.scannedAt ?? null,
    placeholder: row.status === 'ready' ? (row.placeholder ?? null) : null,
    ...(importing
      ? {
          importProgress: {
            receivedBytes: importState.receivedBytes,
            totalBytes: importState.totalBytes,
          },
        }
      : {}),
    ...(failed ? { importError: failed } : {}),
  };
}

/**
 * The file's CDN URL, for anyone to use: null for a private file, which is served only
 * through a signed link (`POST /v1/files/:id/signed-url`).
 */
export function publicUrl(
  ctx: CoreContext,
  row: Pick<FileRow, 'id' | 'name' | 'visibility'>,
): string | null {
  return row.visibility === 'private' ? null : fileUrl(ctx.urls.cdn, row.id, row.name);
}

const MiB = 1024 * 1024;

/**
 * The part size for a file: the configured one, raised (in whole MiB) when the file would
 * otherwise need more than 10,000 parts.
 */
export function choosePartSize(size: number, configured: number): number {
  const needed = Math.ceil(size / MAX_PARTS / MiB) * MiB;
  return Math.max(configured, needed);
}

/** Where each part of a multi-step upload sits in the file: all full but the last. */
export function partLayout(size: number, partSize: number): PartPlacement[] {
  const count = Math.max(1, Math.ceil(size / partSize));
  return Array.from({ length: count }, (_, index) => {
    const offset = index * partSize;
    return { partNumber: index + 1, offset, size: Math.min(partSize, size - offset) };
  });
}
