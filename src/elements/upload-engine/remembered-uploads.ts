import type { RememberedUpload } from '../../client/upload-sequence.js';
import { fillMemory } from './en-memory.js';
import type { FileUpload } from './file-state.js';
import { type FileView, type UploaderSettings, unsentFileView } from './file-view.js';
import { letGo } from './memory-shared.js';
import { type KeptUpload, rememberedFor, runningElsewhere } from './resume-memory.js';
import { fingerprintOfFile, forget, hold, remember } from './resume-writes.js';

/**
 * The memory of uploads across reloads: a chunk of its own, fetched by `upload-memory.ts`
 * only when a page remembers or forgets an upload or the browser holds the memory's
 * database. Reads in `resume-memory.ts`, writes, locks and fingerprints in
 * `resume-writes.ts`.
 */
export { forget };

// The English word of the uploads this chunk lists as interrupted arrives with it.
fillMemory();

/**
 * The uploader's memory of uploads across reloads (kept in IndexedDB by `resume-memory.ts`):
 * which to take up when the page comes back, which a chosen file resumes, and which to
 * remember or forget as files run.
 */
export class RememberedUploads {
  /** Uploads remembered from before this page was loaded, not yet taken up again. */
  #remembered: KeptUpload[] = [];
  readonly #changed: () => void;

  /** `changed`: what the list shows has changed (an interrupted upload came or went). */
  constructor(changed: () => void) {
    this.#changed = changed;
  }

  /**
   * Takes up the uploads remembered from an earlier visit of this page (to this endpoint,
   * with this key): files kept whole are handed to `resume` at once; the others wait for
   * the user to choose the same file again (`interrupted`), matched when it is signed
   * (`recalled`). Asked once per endpoint and key, before this page remembers any upload of
   * its own there (see `UploadEngine`'s `#recall`).
   */
  recall(
    { endpoint, apiKey }: Pick<UploaderSettings, 'endpoint' | 'apiKey'>,
    resume: (files: File[]) => void,
  ): void {
    // No IndexedDB here (a private window may refuse it): nothing to take up.
    // Not those another tab is running now (it holds their locks).
    void Promise.all([rememberedFor(endpoint, apiKey), runningElsewhere()])
      .catch(() => [[], new Set<string>()] as const)
      .then(([remembered, elsewhere]) => {
        this.#remembered = remembered.filter((upload) => !elsewhere.has(upload.id));
        const kept = this.#remembered.flatMap((upload) => (upload.file ? [upload.file] : []));
        if (kept.length > 0) resume(kept);
        this.#changed();
      });
  }

  /** Uploads cut off before this page was loaded, until their files are chosen again. */
  get interrupted(): FileView[] {
    return this.#remembered.flatMap((upload) =>
      upload.file ? [] : [unsentFileView(`interrupted-${upload.id}`, upload, 'interrupted', null)],
    );
  }

  /** Forgets every upload remembered for this endpoint and key (and no longer offers them). */
  async forgetAll({
    endpoint,
    apiKey,
  }: Pick<UploaderSettings, 'endpoint' | 'apiKey'>): Promise<void> {
    this.#remembered = [];
    this.#changed();
    const remembered = await rememberedFor(endpoint, apiKey).catch(() => []);
    if (remembered.length === 0) return;
    for (const upload of remembered) await forget(upload);
  }

  /** An interrupted upload removed from the list is forgotten. */
  removeInterrupted(removed: ReadonlySet<string>): void {
    this.#remembered = this.#remembered.filter((upload) => {
      if (!removed.has(`interrupted-${upload.id}`)) return true;
      void forget(upload).catch(() => undefined);
      return false;
    });
  }

  /**
   * The upload remembered before this page was loaded, if this file is the one it was
   * sending (the same name and size first: only then is the file read to be sure).
   */
  async recalled(upload: FileUpload, file: File): Promise<RememberedUpload | undefined> {
    const { endpoint, apiKey } = upload.target;
    const candidates = this.#remembered.filter(
      (known) =>
        known.endpoint === endpoint &&
        known.apiKey === apiKey &&
        known.name === file.name &&
        known.size === file.size,
    );
    if (candidates.length === 0) return undefined;
    const fingerprint = await fingerprintOfFile(file);
    const match = candidates.find((known) => known.fingerprint === fingerprint);
    if (!match) return undefined;
    this.#remembered = this.#remembered.filter((known) => known !== match);
    this.#changed();
    upload.fingerprint = fingerprint;
    upload.recalled = true;
    upload.unlock = hold(match.id);
    return match;
  }
}

/**
 * Remembers a file's upload across reloads, if it is still on its way; `wanted` says
 * whether it is still in the list (the same file chosen again after a removal is another
 * upload, remembered under the same key).
 */
export async function rememberUpload(
  upload: FileUpload,
  file: File,
  keepFilesUpTo: number,
  wanted: () => boolean,
): Promise<void> {
  if (!upload.plan || upload.record) return;
  upload.fingerprint ??= await fingerprintOfFile(file);
  // Removed while its file was read: its removal found nothing to forget yet.
  if (!upload.plan || upload.record || !wanted()) return;
  const { uploadId: id, uploadToken: token } = upload.plan;
  upload.unlock ??= hold(id);
  const { endpoint, apiKey } = upload.target;
  await remember({
    endpoint,
    apiKey,
    id,
    token,
    fingerprint: upload.fingerprint,
    name: file.name,
    size: file.size,
    file: file.size <= keepFilesUpTo ? file : null,
  }).catch(() => undefined);
  // Finished or removed while it was written: not to be taken up again (unless the entry is
  // by now a newer upload's of the same file).
  if (upload.record || !wanted()) {
    letGo(upload, (kept) => void forget(kept, id).catch(() => undefined));
  }
}
