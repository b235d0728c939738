import { MAX_UNFINISHED_UPLOADS, MIN_PART_SIZE } from '../../api/limits.js';
import type { SignRequest } from '../../api/types.js';
import { FilehostApi } from '../../client/api.js';
import { places } from '../../client/concurrency-limit.js';
import { UploadSequence } from '../../client/upload-sequence.js';
import { type ConnectionProblem, connect } from '../shared/connection.js';
import { setupFailure } from './file-retries.js';
import type { FileUpload, UploadTarget } from './file-state.js';
import { placeOf } from './file-state.js';
import type { ChecksumChoice } from './file-view.js';

/**
 * The uploader's clients: one per endpoint and key its files were added with (usually
 * one), each with its `UploadSequence` (the steps the typed client's uploads take too).
 * Files added together (one drop, pick or paste, or within a moment) are signed in one
 * call and completed in batches as their bytes land (the sequence's session, as in the
 * typed client): a page of small files then costs about one
 * request per file instead of three. A batch call that fails as a whole fails each of its
 * files, and each is retried by the usual rules, on its own. The first sign of files dropped
 * together does not go alone ahead of the rest: they are one request, so no preflight is
 * left to warm (what that was worth: test/bench/README.md, "Moved from the code").
 */
export class Connections {
  readonly #clients = new Map<string, FilehostApi | ConnectionProblem>();
  readonly #sequences = new WeakMap<FilehostApi, UploadSequence>();
  /**
   * Places among the uploads signed and not finished (`MAX_UNFINISHED_UPLOADS`): one per
   * element whatever its key or token, since the service counts them per address.
   */
  readonly unfinished = places(MAX_UNFINISHED_UPLOADS);
  /** Hears of each token a provider gives (its limits change what the drop zone says). */
  readonly #granted: (() => void) | undefined;

  constructor(granted?: () => void) {
    this.#granted = granted;
  }

  /**
   * The client for a file's endpoint and key (or upload token), or (thrown) why there
   * cannot be one. A token's client is made by the token code, which only pages that set
   * a token fetch (`upload-tokens.ts`).
   */
  async clientFor(target: UploadTarget): Promise<FilehostApi> {
    const { endpoint, apiKey } = target;
    const tokens =
      target.uploadToken || target.tokenProvider ? await import('./upload-tokens.js') : null;
    const key = tokens ? tokens.keyOf(target) : placeOf(endpoint, apiKey);
    let connection = this.#clients.get(key);
    if (connection === undefined) {
      connection = tokens
        ? tokens.connectWith(target, this.#granted)
        : connect(FilehostApi, endpoint, apiKey);
      this.#clients.set(key, connection);
    }
    if (typeof connection !== 'string') return connection;
    throw setupFailure(connection);
  }

  /** The upload sequence of a file's client: its batched sign and complete, this element's cap. */
  async sequenceFor(target: UploadTarget): Promise<UploadSequence> {
    const client = await this.clientFor(target);
    let sequence = this.#sequences.get(client);
    if (!sequence) {
      sequence = new UploadSequence(client, { pending: this.unfinished });
      this.#sequences.set(client, sequence);
    }
    return sequence;
  }
}

/** What the sign step is told of a file. */
export function signRequestFor(
  file: { name?: string; size: number | null; type?: string },
  upload: FileUpload,
  checksum: ChecksumChoice,
): SignRequest {
  // A file of a folder carries its path in it (`album/2026/a.jpg`) as `relativePath`.
  const { relativePath, target } = upload;
  const size = file.size ?? 0;
  return {
    name: file.name ?? 'upload',
    size,
    type: file.type || undefined,
    // By default files of one part are checked on the way, and bigger ones only with
    // checksum="all": reading a file to hash it costs about what sending it does
    // (a 256 MiB upload ran at about half the speed here; see the README).
    checksum: checksum === 'all' || (checksum !== 'off' && size <= MIN_PART_SIZE),
    metadata: relativePath ? { ...target.metadata, relativePath } : target.metadata,
    visibility: target.visibility,
  };
}
