import { open } from 'node:fs/promises';
import type { HeldPart } from '../blob-store.js';

/** What the local store keeps of a multipart upload, so its part route needs nothing else. */
export interface UploadManifest {
  size: number;
  partSize: number;
  contentType: string;
}

/** An open upload as its log says: the manifest, and the parts held whole. */
export interface UploadState {
  manifest: UploadManifest;
  parts: Map<number, HeldPart>;
}

type LogLine =
  /** `at`: when the part arrived (ms); absent in logs written before it was kept. */
  | { part: number; size: number; etag: string; at?: number }
  | {
      clear: number;
    };

/**
 * A multipart upload's log on the local disk: the manifest on its first line, then one
 * line per part that arrived whole (after its bytes were flushed) and one per part that
 * stopped being whole (before its bytes change). Appending to one file and flushing it is
 * the cheapest durable record a filesystem offers: no new directory entries per part,
 * hence no directory flushes (on this machine's disk those were what made a part cost more).
 */
export async function createLog(path: string, manifest: UploadManifest): Promise<void> {
  const handle = await open(path, 'wx', 0o644);
  try {
    await handle.writeFile(`${JSON.stringify(manifest)}\n`);
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/**
 * Appends one line and flushes it. O_APPEND makes each line one atomic append, so parts
 * of one upload finishing at once never overwrite each other's lines. The caller makes
 * sure the upload is open (the store never appends for an upload being removed).
 */
export async function appendLog(path: string, line: LogLine): Promise<void> {
  const handle = await open(path, 'a');
  try {
    await handle.write(`${JSON.stringify(line)}\n`);
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/**
 * The state a log describes. A last line cut short by a crash was never flushed, so never
 * acknowledged: it is ignored. A log without a whole manifest describes no upload.
 */
export function replayLog(text: string): UploadState | null {
  const lines = text.split('\n');
  // Everything after the last newline is a line the process did not finish writing.
  lines.pop();
  const [first, ...rest] = lines;
  if (first === undefined) return null;
  const manifest = JSON.parse(first) as UploadManifest;
  const parts = new Map<number, HeldPart>();
  for (const raw of rest) {
    const line = JSON.parse(raw) as LogLine;
    if ('clear' in line) parts.delete(line.clear);
    else {
      parts.set(line.part, {
        partNumber: line.part,
        size: line.size,
        etag: line.etag,
        ...(line.at === undefined ? {} : { arrivedAt: line.at }),
      });
    }
  }
  return { manifest, parts };
}
