import { MAX_UNFINISHED_UPLOADS, MIN_PART_SIZE } from '../../api/limits.js';
import { UPLOAD_TOKEN_PREFIX } from '../../api/routes.js';
import type { SignRequest } from '../../api/types.js';
import { FilehostApi } from '../../client/client.js';
import { concurrencyLimit } from '../../client/concurrency-limit.js';
import { UploadSession } from '../../client/upload-session.js';
import { tokensOnUse, type UploadTokenProvider } from '../../client/upload-token.js';
import { type ConnectionProblem, connect } from '../shared/connection.js';
import { setupFailure } from './file-retries.js';
import type { FileUpload, UploadTarget } from './file-state.js';
import type { ChecksumChoice } from './file-view.js';

/**
 * The uploader's clients: one per endpoint and key its files were added with (usually
 * one), each with its `UploadSession`. Files added together (one drop, pick or paste, or
 * within a moment) are signed in one call and completed in batches as their bytes land
 * (the session, shared with the typed client): a page of small files then costs about one
 * request per file instead of three. A batch call that fails as a whole fails each of its
 * files, and each is retried by the usual rules, on its own. (Files dropped together no
 * longer need their first sign to go alone so the rest find the CORS preflight cached:
 * they are one request. Letting it go alone cost 10% on 200 small files: 1.85x to 1.67x of
 * the one-request time, medians of three bench runs each.)
 */
export class Connections {
  readonly #clients = new Map<string, FilehostApi | ConnectionProblem>();
  readonly #sessions = new WeakMap<FilehostApi, UploadSession>();
  /** Each token provider a page gave, numbered: part of the key of its clients. */
  readonly #providers = new WeakMap<UploadTokenProvider, number>();
  /**
   * Places among the uploads signed and not finished (`MAX_UNFINISHED_UPLOADS`): one per
   * element whatever its key or token, since the service counts them per address.
   */
  readonly unfinished = concurrencyLimit(MAX_UNFINISHED_UPLOADS);

  /** The client for a file's endpoint and key (or token), or (thrown) why there cannot be one. */
  clientFor(target: UploadTarget): FilehostApi {
    const { endpoint, apiKey, uploadToken, tokenProvider } = target;
    let provider = tokenProvider ? this.#providers.get(tokenProvider) : 0;
    if (provider === undefined && tokenProvider) {
      provider = ++providers;
      this.#providers.set(tokenProvider, provider);
    }
    const key = `${endpoint}\n${apiKey}\n${uploadToken ?? ''}\n${provider}`;
    let connection = this.#clients.get(key);
    if (connection === undefined) {
      const tokens =
        uploadToken || tokenProvider
          ? tokensOnUse(uploadToken, tokenProvider, () => import('./upload-tokens.js'))
          : undefined;
      // With a token the key may be left out (the upload calls go with the token).
      connection = connect(FilehostApi, endpoint, apiKey || (tokens ? UPLOAD_TOKEN_PREFIX : ''), {
        tokens,
      });
      this.#clients.set(key, connection);
    }
    if (typeof connection !== 'string') return connection;
    throw setupFailure(connection);
  }

  sessionFor(target: UploadTarget): UploadSession {
    const client = this.clientFor(target);
    let session = this.#sessions.get(client);
    if (!session) {
      session = new UploadSession(client);
      this.#sessions.set(client, session);
    }
    return session;
  }
}

let providers = 0;

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
