import { needsFreshUrls } from './part-plan.js';
import type { PlannedPart } from './upload-plan.js';

// Where they were first: the ETag of an answer lives apart (`part-etag.ts`), so that the
// upload engine, which reads ETags from its XHRs, does not carry the fresh-URL retry (its
// part sender's, a chunk loaded on use).
export { partEtag, xhrPartEtag } from './part-etag.js';

/**
 * A part PUT of the multi-step upload, as both uploaders send it (the typed client through
 * `fetch`, `<file-uploader>` through Uppy's XHR): the ETag read from its answer, and fresh
 * URLs asked for once when the store refuses the part's URL.
 */

export interface FreshUrlRetry<T> {
  /** Sends the part to `target` (its URL and headers); may be called twice. */
  put: (target: PlannedPart) => Promise<T>;
  /** The HTTP status of a failed PUT (0: no answer), undefined for anything else. */
  statusOf: (error: unknown) => number | undefined;
  /** Fresh URLs from the service (`GET /v1/uploads/:id`): the part as it is now signed. */
  freshPart: () => Promise<PlannedPart>;
  /** Shared by the tries of one part: fresh URLs are asked for once per part. */
  state: { refreshed: boolean };
  signal?: AbortSignal;
}

/**
 * Sends a part; when the store refuses it in a way fresh URLs may cure (`needsFreshUrls`:
 * a 403, which is how an expired URL answers on every store, or no answer at all, which is
 * how a browser sees S3's expired URL) and the part has not had fresh URLs yet, asks for
 * them and sends the part once more, to its fresh URL. Failing again is final here.
 */
export async function putWithFreshUrl<T>(part: PlannedPart, retry: FreshUrlRetry<T>): Promise<T> {
  try {
    return await retry.put(part);
  } catch (error) {
    const status = retry.statusOf(error);
    if (
      retry.signal?.aborted ||
      retry.state.refreshed ||
      status === undefined ||
      !needsFreshUrls(status)
    ) {
      throw error;
    }
    retry.state.refreshed = true;
    return retry.put(await retry.freshPart());
  }
}

/**
 * The bytes an upload has sent, summed over its parts (or over the parts of several files):
 * each part's count is replaced as it grows, set back to 0 when the part is sent again, and
 * set to its size once the service holds it.
 */
export class SentBytes<Key> {
  readonly #sent = new Map<Key, number>();

  set(key: Key, bytes: number): void {
    this.#sent.set(key, bytes);
  }

  get total(): number {
    let sum = 0;
    for (const bytes of this.#sent.values()) sum += bytes;
    return sum;
  }
}
