import type { ImportRequest, ImportResponse, ImportState } from '../api/types.js';
import type { uploadRoutes } from '../api/upload-routes.js';
import { type CallOptions, FilehostConnection } from './connection.js';
import type { FilehostApiOptions } from './options.js';
import type { TokenSource } from './upload-token.js';

/** The paths of an import's calls, as the route table spells them. */
export type ImportPaths = Pick<typeof uploadRoutes, 'import' | 'uploadState'>;

/**
 * The two calls of an import: `POST /v1/uploads/import` (an upload call: with the token
 * when there is one, as the uploads make it) and `GET /v1/uploads/:id` with the import's own
 * token (and the client's token, else its key). A connection of its own, not a part of
 * `FilehostApi`, so that `<file-uploader>`'s Link source carries these and the upload
 * engine does not; `FilehostCalls` holds one for `importFromUrl`. The paths come from the
 * upload paths (`uploadRoutes`, or the whole `routes`), given: the Link source takes them
 * from the upload engine's chunk, which holds them, since a module both chunks imported
 * would become a file of its own.
 */
export class ImportCalls extends FilehostConnection {
  readonly #tokens: TokenSource | null;
  /** `POST /v1/uploads/import`'s path. */
  readonly #startPath: string;
  readonly #statePath: ImportPaths['uploadState'];

  constructor(options: FilehostApiOptions, paths: ImportPaths) {
    super(options);
    this.#tokens = options.tokens ?? null;
    // Taken apart here, not called as `paths.import()`: the one-file bundle is checked to
    // hold exactly one `import(` (its language's).
    const { import: startPath, uploadState } = paths;
    this.#startPath = startPath();
    this.#statePath = uploadState;
  }

  start(request: ImportRequest, options: CallOptions = {}): Promise<ImportResponse> {
    return this.#withToken((auth) =>
      this.request<ImportResponse>('POST', this.#startPath, {
        body: JSON.stringify(request),
        headers: { 'Content-Type': 'application/json', ...auth },
        signal: options.signal,
      }),
    );
  }

  /** The import as the service holds it now (its progress, or its end). */
  state(id: string, uploadToken: string, options: CallOptions = {}): Promise<ImportState> {
    return this.#withToken((auth) =>
      this.request<ImportState>('GET', this.#statePath(id), {
        headers: { 'X-Upload-Token': uploadToken, ...auth },
        signal: options.signal,
      }),
    );
  }

  #withToken<T>(call: (auth: Record<string, string>) => Promise<T>): Promise<T> {
    return this.#tokens ? this.#tokens.send(call) : call({});
  }
}
