import { createStore, delMany, entries, set, setMany, type UseStore } from 'idb-keyval';
import type { RememberedUpload } from '../../client/upload-sequence.js';

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
type StoredUpload = Omit<KeptUpload, 'id' | 'token'> & {
  uploadId: string;
  uploadToken?: string | null;
};

/** Where an element's uploads go, as one string: its endpoint and its key. */
export const placeOf = (endpoint: string, apiKey: string) => `${endpoint}\n${apiKey}`;

let store: UseStore | undefined;
function uploads(): UseStore {
  store ??= createStore('filehost-uploader', 'uploads');
  return store;
}

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

/** Remembers an upload (again: the same file to the same place is one entry). */
export function remember({ id, token, ...upload }: KeptUpload): Promise<void> {
  return change(keyOf(upload), { ...upload, uploadId: id, uploadToken: token });
}

export function forget(upload: Pick<KeptUpload, 'endpoint' | 'apiKey' | 'fingerprint'>) {
  return change(keyOf(upload), undefined);
}

const LOCK = 'filehost-upload ';

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
