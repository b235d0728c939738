import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FileRow, MetadataStore } from '../db/metadata-store.js';
import type { BlobStore } from '../storage/blob-store.js';
import { hasPlaceholder, placeholderOf } from './placeholder.js';

/** Rows read at a time. */
const PAGE = 100;

export interface FillProgress {
  /** Ready images without a placeholder looked at so far. */
  seen: number;
  /** Of those, how many got one. */
  filled: number;
}

/**
 * `admin placeholders fill`: computes the placeholder of every ready image made before
 * placeholders (or while an older instance ran), as ingest does for new ones. Idempotent:
 * only rows without one are read, and a placeholder is set only where there is still none.
 * An image that does not decode keeps none (and is looked at again by the next run).
 */
export async function fillPlaceholders(
  db: MetadataStore,
  blobs: BlobStore,
  onProgress: (progress: FillProgress) => void,
): Promise<FillProgress> {
  const progress: FillProgress = { seen: 0, filled: 0 };
  let after: string | null = null;
  for (;;) {
    const rows = await db.listImagesWithoutPlaceholder(after, PAGE);
    if (rows.length === 0) return progress;
    for (const row of rows) {
      after = row.id;
      if (!hasPlaceholder(row.mime)) continue;
      progress.seen++;
      const placeholder = await storedPlaceholder(blobs, row);
      if (placeholder !== null && (await db.setPlaceholder(row.id, placeholder))) {
        progress.filled++;
      }
      onProgress(progress);
    }
  }
}

/** The placeholder of a stored file: its local file, or a temporary copy of the object. */
async function storedPlaceholder(blobs: BlobStore, row: FileRow): Promise<string | null> {
  const local = blobs.localPath?.(row.id);
  if (local !== undefined) return placeholderOf(local, row.mime);
  const source = await blobs.get(row.id);
  if (!source) return null;
  const dir = await mkdtemp(join(tmpdir(), 'filehost-fill-'));
  try {
    const copy = join(dir, 'image');
    await pipeline(source, createWriteStream(copy));
    return await placeholderOf(copy, row.mime);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
