import { createStore, entries, type UseStore } from 'idb-keyval';
import type { RememberedUpload } from '../../client/upload-sequence.js';
import { MEMORY_DATABASE } from './memory-shared.js';

/**
 * What `<file-uploader>` remembers of each unfinished upload, in the browser's IndexedDB,
 * so that a reload, a crash or a closed tab does not lose it: the upload (its id and token,
 * the record the typed client's `ResumeStore` keeps too), where it goes, what tells the file
 * apart from any other, and (for files up to `resume-max-size`) the file itself. A file
 * that was not kept can be matched again only when the user picks or drops it again: a
 * page cannot re-open a file by itself.
 */
export interface KeptUpload extends RememberedUpload {
  endpoint: string;
  apiKey: string;
  /** Name, size, type, last change and a hash of the first and last MiB (`fingerprintOf`). */
  fingerprint: string;
  name: string;
  size: number;
  /** The file itself, when it was small enough to keep: it resumes with no one asking. */
  file: File | null;
}

/**
 * A `KeptUpload` as IndexedDB holds it: the upload's id and token under the names they had
 * before the one record (`uploadId`, and `uploadToken`, absent before tokens: such an
 * upload is not found again, and starts afresh), so that what a page remembered before an
 * update of the script is taken up after it.
 */
export type StoredUpload = Omit<KeptUpload, 'id' | 'token'> & {
  uploadId: string;
  uploadToken?: string | null;
};

let store: UseStore | undefined;
export function uploads(): UseStore {
  store ??= createStore(MEMORY_DATABASE, 'uploads');
  return store;
}

/** The name of the Web Lock held for an upload while a page runs it (`hold`), before its id. */
export const LOCK = 'filehost-upload ';

/** The ids of the uploads another tab of this browser is running now. */
export async function runningElsewhere(): Promise<Set<string>> {
  const held = (await navigator.locks?.query().catch(() => undefined))?.held ?? [];
  return new Set(held.map((lock) => lock.name?.slice(LOCK.length) ?? ''));
}

/** The unfinished uploads to this endpoint with this key. */
export async function rememberedFor(endpoint: string, apiKey: string): Promise<KeptUpload[]> {
  return (await entries<string, StoredUpload>(uploads())).flatMap(
    ([, { uploadId, uploadToken, ...upload }]) =>
      upload.endpoint === endpoint && upload.apiKey === apiKey
        ? [{ ...upload, id: uploadId, token: uploadToken ?? null }]
        : [],
  );
}
