import type { FileUpload } from './file-state.js';

/**
 * What the memory of uploads shares between its loader (`upload-memory.ts`, in the engine)
 * and its chunk (`remembered-uploads.ts` and the files it brings): here, so that the chunk
 * never imports the module that loads it.
 */

/** The IndexedDB database the memory keeps its uploads in (its one store: `uploads`). */
export const MEMORY_DATABASE = 'filehost-uploader';

/** Where a remembered upload is kept: its endpoint, key and file's fingerprint. */
export interface KeptPlace {
  endpoint: string;
  apiKey: string;
  fingerprint: string;
}

/**
 * Lets go of a file's upload: its lock now, and its memory across reloads through `forget`
 * (the chunk's own, or the loader's, which fetches the chunk first) when it was remembered.
 */
export function letGo(upload: FileUpload, forget: (kept: KeptPlace) => void): void {
  upload.unlock?.();
  upload.unlock = null;
  const { fingerprint } = upload;
  if (fingerprint)
    forget({ endpoint: upload.target.endpoint, apiKey: upload.target.apiKey, fingerprint });
}
