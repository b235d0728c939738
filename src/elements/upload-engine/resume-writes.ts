import { delMany, set, setMany } from 'idb-keyval';
import { fingerprintOf } from '../../client/fingerprint.js';
import { placeOf } from './file-state.js';
import { type KeptUpload, LOCK, type StoredUpload, uploads } from './resume-memory.js';

/**
 * The writes of the uploader's memory across reloads (`resume-memory.ts` reads it), the
 * locks that tell other tabs which uploads this page runs, and what tells a chosen file
 * apart; in the memory's chunk (see `upload-memory.ts`).
 */

const keyOf = (upload: Pick<KeptUpload, 'endpoint' | 'apiKey' | 'fingerprint'>) =>
  `${placeOf(upload.endpoint, upload.apiKey)}\n${upload.fingerprint}`;

/**
 * Changes waiting to be written, by key (the last one for a key wins: undefined deletes).
 * They go to IndexedDB together a moment later, one transaction for what is remembered and
 * one for what is forgotten: 200 small files remembered at once took 200 transactions, and
 * a tenth of their upload time (measured taking turns with `no-resume`).
 */
let changes = new Map<string, StoredUpload | undefined>();
let written: Promise<void> | undefined;

function change(key: string, upload: StoredUpload | undefined): Promise<void> {
  changes.set(key, upload);
  written ??= new Promise((resolve) => setTimeout(resolve, 50)).then(async () => {
    const batch = [...changes];
    changes = new Map();
    written = undefined;
    const kept = batch.filter((entry): entry is [string, StoredUpload] => entry[1] !== undefined);
    // One that does not fit (the browser's quota: kept files are up to 10 MB each) must not
    // take the others with it: then each on its own, as many as fit.
    await setMany(kept, uploads()).catch(() =>
      Promise.all(kept.map(([key, upload]) => set(key, upload, uploads()).catch(() => undefined))),
    );
    await delMany(
      batch.filter(([, upload]) => !upload).map(([key]) => key),
      uploads(),
    );
  });
  return written;
}

/**
 * The upload this page last remembered under each key: the same file chosen again after a
 * removal is remembered under its old upload's key.
 */
const lastRemembered = new Map<string, string>();

/** Remembers an upload (again: the same file to the same place is one entry). */
export function remember({ id, token, ...upload }: KeptUpload): Promise<void> {
  const key = keyOf(upload);
  lastRemembered.set(key, id);
  return change(key, { ...upload, uploadId: id, uploadToken: token });
}

/**
 * Forgets the upload kept for this file and place; with `id`, only while that upload is the
 * one this page last remembered there (an old upload's late forget leaves a newer one's).
 */
export async function forget(
  upload: Pick<KeptUpload, 'endpoint' | 'apiKey' | 'fingerprint'>,
  id?: string,
): Promise<void> {
  const key = keyOf(upload);
  if (id === undefined || lastRemembered.get(key) === id) await change(key, undefined);
}

/**
 * Holds a lock named for the upload while this page runs it (Web Locks: let go when the
 * page closes or crashes), so that another tab of this browser leaves it alone. Returns
 * what lets it go.
 */
export function hold(uploadId: string): () => void {
  let done = false;
  let release: (() => void) | undefined;
  void navigator.locks
    ?.request(LOCK + uploadId, () =>
      done ? undefined : new Promise<void>((resolve) => (release = resolve)),
    )
    .catch(() => undefined);
  return () => {
    done = true;
    release?.();
  };
}

/** A chosen file's fingerprint (the typed client's, with the file's name, type and last change). */
export function fingerprintOfFile(file: File): Promise<string> {
  return fingerprintOf(file, [file.name, file.size, file.type, file.lastModified]);
}
