import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { FileRecord } from '../../api/types.js';
import { ApiError } from '../../client/api-error.js';
import type { FilehostConnection } from '../../client/connection.js';

export type PagingState = 'idle' | 'loading' | 'ready' | 'error';

export interface PageLoaded {
  files: FileRecord[];
  hasMore: boolean;
}

/**
 * Pages through `GET /v1/files` for one list. One request at a time; a new source (key or
 * address changed, or refresh) aborts the request under way and drops its answer, so a
 * slow stale response can never overwrite a newer one. Files are kept by id: an upload
 * added at the top is not repeated when the page holding it arrives later.
 */
export class PagingController implements ReactiveController {
  state: PagingState = 'idle';
  error: ApiError | null = null;
  #files: FileRecord[] = [];
  readonly #ids = new Set<string>();
  #cursor: string | null = null;
  #hasMore = true;
  #client: FilehostConnection | null = null;
  #pageSize = 50;
  #abort: AbortController | null = null;
  #generation = 0;
  #running: Promise<void> | null = null;
  readonly #host: ReactiveControllerHost;
  readonly #onPage: (page: PageLoaded) => void;
  readonly #onError: (error: ApiError) => Promise<void> | undefined;

  constructor(
    host: ReactiveControllerHost,
    callbacks: {
      onPage: (page: PageLoaded) => void;
      /** May settle later (its words on their way): the request settles with it. */
      onError: (error: ApiError) => Promise<void> | undefined;
    },
  ) {
    this.#host = host;
    this.#onPage = callbacks.onPage;
    this.#onError = callbacks.onError;
    host.addController(this);
  }

  hostDisconnected(): void {
    this.#abort?.abort();
  }

  get files(): readonly FileRecord[] {
    return this.#files;
  }

  get hasMore(): boolean {
    return this.#hasMore;
  }

  /** Settles when the request under way (if any) has settled: for tests and callers. */
  get settled(): Promise<void> {
    return this.#running ?? Promise.resolve();
  }

  /** Starts over from the first page with this source (null: nothing to load). */
  reset(client: FilehostConnection | null, pageSize: number): Promise<void> {
    this.#abort?.abort();
    this.#generation++;
    this.#client = client;
    this.#pageSize = pageSize;
    this.#files = [];
    this.#ids.clear();
    this.#cursor = null;
    this.#hasMore = client !== null;
    this.error = null;
    this.state = 'idle';
    this.#running = null;
    this.#host.requestUpdate();
    return this.loadMore();
  }

  /** Loads the next page, unless one is loading already or the end was reached. */
  loadMore(): Promise<void> {
    if (this.#running) return this.#running;
    if (!this.#client || !this.#hasMore) return Promise.resolve();
    this.#running = this.#load(this.#client, this.#generation).finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  /** A file uploaded just now: shown at the top at once, or updated if already listed. */
  add(record: FileRecord): boolean {
    if (this.#ids.has(record.id)) {
      this.#files = this.#files.map((file) => (file.id === record.id ? record : file));
      this.#host.requestUpdate();
      return false;
    }
    this.#ids.add(record.id);
    this.#files = [record, ...this.#files];
    this.#host.requestUpdate();
    return true;
  }

  async #load(client: FilehostConnection, generation: number): Promise<void> {
    const abort = new AbortController();
    this.#abort = abort;
    this.state = 'loading';
    this.error = null;
    this.#host.requestUpdate();
    try {
      const page = await client.listFiles(
        { limit: this.#pageSize, cursor: this.#cursor },
        { signal: abort.signal },
      );
      // A newer source took over while this page was on its way: drop it.
      if (generation !== this.#generation) return;
      const fresh = page.files.filter((file) => !this.#ids.has(file.id));
      for (const file of fresh) this.#ids.add(file.id);
      this.#files = [...this.#files, ...fresh];
      this.#cursor = page.nextCursor;
      this.#hasMore = page.nextCursor !== null;
      this.state = 'ready';
      this.#onPage({ files: page.files, hasMore: this.#hasMore });
    } catch (error) {
      if (generation !== this.#generation || abort.signal.aborted) return;
      this.state = 'error';
      this.error = error instanceof ApiError ? error : ApiError.network(error);
      await this.#onError(this.error);
    } finally {
      if (generation === this.#generation) this.#host.requestUpdate();
    }
  }
}
