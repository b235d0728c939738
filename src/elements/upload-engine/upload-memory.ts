import { loadChunk } from '../../client/missing-chunk.js';
import type { FileUpload } from './file-state.js';
import { letGo, MEMORY_DATABASE } from './memory-shared.js';

/**
 * What every page that uploads needs of the memory of uploads across reloads: when to
 * fetch it. The memory itself (`remembered-uploads.ts`: what it reads, writes, locks and
 * fingerprints, with IndexedDB's wrapper) is a chunk of its own, fetched the first time a
 * page remembers or forgets an upload, or finds the memory's database in the browser. A
 * page whose uploads all finish within `REMEMBER_AFTER_MS`, in a browser that never
 * remembered one, never fetches it and never opens IndexedDB.
 */

/**
 * An upload is remembered across reloads once it has run this long without finishing: most
 * small files are done sooner, and never cost an IndexedDB write (200 at once would).
 */
export const REMEMBER_AFTER_MS = 1000;

type Memory = typeof import('./remembered-uploads.js');
let memory: Promise<Memory> | null = null;

/** The memory's chunk (fetched again after a failed fetch). */
export function loadMemory(): Promise<Memory> {
  memory ??= loadChunk(() => import('./remembered-uploads.js')).catch((error: unknown) => {
    memory = null;
    throw error;
  });
  return memory;
}

/**
 * Whether this browser may hold uploads remembered before this page was loaded: only once
 * the memory's database exists, asked without opening it. A browser that cannot tell (no
 * `indexedDB.databases`) may; one without IndexedDB (a private window may refuse it) holds
 * none.
 */
export async function mayHoldUploads(): Promise<boolean> {
  try {
    const known = await indexedDB.databases?.();
    return !known || known.some(({ name }) => name === MEMORY_DATABASE);
  } catch {
    return false;
  }
}

/** Lets go of a file's upload: its lock, and its memory across reloads. */
export function forgetUpload(upload: FileUpload): void {
  // A fingerprint was taken by the memory's chunk: it is in.
  letGo(upload, (kept) => {
    void loadMemory()
      .then(({ forget }) => forget(kept))
      .catch(() => undefined);
  });
}
