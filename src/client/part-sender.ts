import type { PartChecksum } from '../api/checksum.js';
import type { UploadState } from '../api/types.js';
import { ApiError } from './api-error.js';
import type { ConcurrencyLimit } from './concurrency-limit.js';
import { missingParts, partStart, takeFreshUrls } from './part-plan.js';
import { putWithFreshUrl } from './part-put.js';
import { type RetryOptions, withRetry } from './retry.js';
import { isTransient } from './transient.js';
import type { PlannedPart, UploadPlan } from './upload-plan.js';

/** One PUT of a part's bytes to its signed URL, as a transport is asked to send it. */
export interface PartRequest<Body> {
  partNumber: number;
  url: string;
  headers: Record<string, string>;
  body: Body;
  /** The part's length (a stream body has none of its own). */
  size: number;
  signal?: AbortSignal;
  /** Bytes of this try sent so far, as far as the transport learns them. */
  onProgress: (bytesSent: number) => void;
}

/**
 * How a runtime PUTs a part: `fetch` in the typed client, Uppy's XHR `fetcher` in
 * `<file-uploader>` (whose upload progress fetch cannot report). Resolves with the part's
 * ETag (null when the answer carried none: complete then goes by what the service holds);
 * rejects with an `ApiError` (status 0: no answer), or with the signal's reason once stopped.
 */
export type PartTransport<Body> = (request: PartRequest<Body>) => Promise<string | null>;

/** The header carrying a part's digest, as this runtime computes it (`{}` where it cannot). */
export type PartDigester<Body> = (
  algorithm: PartChecksum,
  body: Body,
) => Promise<Record<string, string>>;

/**
 * How a part's tries are repeated: `attempt` is one try of the part (fresh URLs included);
 * the policy decides whether and when another follows.
 */
export type PartRetry = <T>(attempt: () => Promise<T>) => Promise<T>;

/**
 * The typed client's policy (`withRetry`): transient failures (network, 408, 429, 5xx) and
 * bytes the storage refused as damaged (`checksum_mismatch`) are tried again after a
 * backoff, `retries` times.
 */
export function retryTransientParts(options: RetryOptions): PartRetry {
  return (attempt) => withRetry(attempt, { ...options, isRetryable: isRetryablePartFailure });
}

/** What `sendParts` is handed: the runtime's ways to read, hash and send, and the policy. */
export interface PartSending<Body> {
  transport: PartTransport<Body>;
  digest: PartDigester<Body>;
  /** The file's bytes `[start, end)`; read again for each try (a stream is read once). */
  read: (start: number, end: number) => Body | Promise<Body>;
  /** The upload as the service holds it now (`GET /v1/uploads/:id`): fresh part URLs. */
  uploadState: (signal?: AbortSignal) => Promise<UploadState>;
  /** Slots for part PUTs, shared by the files of one uploader. */
  limit: ConcurrencyLimit;
  /** How each part's tries are repeated (`retryTransientParts`, or the transport's own). */
  retry: PartRetry;
  /** Stops the file: a pause, a removal, the caller. */
  signal?: AbortSignal;
  /** A part's bytes sent so far: 0 as a try starts, its size once the service holds it. */
  onBytes: (partNumber: number, bytes: number) => void;
}

/**
 * Sends the parts of a file the service does not hold yet (all of them, or the rest on a
 * resume), for both uploaders: the typed client and `<file-uploader>`'s Uppy plugin. Each
 * part takes a slot of `limit`, is retried on its own (by the `retry` policy given), gets
 * fresh URLs once when its URL is refused (`putWithFreshUrl`), and has its ETag recorded
 * in the plan.
 *
 * With an upload signed with checksums, each part's digest is computed one part after
 * another in part order, ahead of the sending (part 2 is hashed while part 1 goes out), so
 * hashing holds one part's bytes at a time and overlaps the PUTs instead of adding to them.
 *
 * The first part to fail fails the file: parts not started yet are not sent, and those on
 * their way land (and count) before it rejects, so a retry of the file does not send them
 * again. Rejects with the signal's reason once it aborts.
 */
export async function sendParts<Body>(plan: UploadPlan, sending: PartSending<Body>): Promise<void> {
  const { signal } = sending;
  for (const part of plan.parts) if (part.etag) sending.onBytes(part.partNumber, part.size);
  const missing = missingParts(plan);
  const digests = digestsAhead(plan, missing, sending);
  let failed = false;
  const settled = await Promise.allSettled(
    missing.map((part) =>
      sending.limit(async () => {
        if (failed || signal?.aborted) return;
        await sendPart(plan, part, digests.get(part.partNumber), sending).catch(
          (error: unknown) => {
            failed = true;
            throw error;
          },
        );
      }),
    ),
  );
  signal?.throwIfAborted();
  for (const result of settled) if (result.status === 'rejected') throw result.reason;
}

/** Each missing part's digest headers, computed in part order, one after the other. */
function digestsAhead<Body>(
  plan: UploadPlan,
  missing: PlannedPart[],
  sending: PartSending<Body>,
): Map<number, Promise<Record<string, string>>> {
  const digests = new Map<number, Promise<Record<string, string>>>();
  const { checksum } = plan;
  if (!checksum) return digests;
  const { signal } = sending;
  let ahead: Promise<unknown> = Promise.resolve();
  for (const part of missing) {
    const start = partStart(plan, part);
    const digest = ahead.then(async () => {
      signal?.throwIfAborted();
      return sending.digest(checksum, await sending.read(start, start + part.size));
    });
    // Awaited by the part's PUT; a part never sent (the file stopped) must not warn.
    digest.catch(() => {});
    digests.set(part.partNumber, digest);
    ahead = digest;
  }
  return digests;
}

/** A failed part PUT worth another try: transient, or bytes damaged on the way. */
function isRetryablePartFailure(error: unknown): boolean {
  return (error instanceof ApiError && error.code === 'checksum_mismatch') || isTransient(error);
}

async function sendPart<Body>(
  plan: UploadPlan,
  part: PlannedPart,
  digest: Promise<Record<string, string>> | undefined,
  sending: PartSending<Body>,
): Promise<void> {
  const { signal } = sending;
  const start = partStart(plan, part);
  const digestHeaders = (await digest) ?? {};
  const report = (bytes: number) => sending.onBytes(part.partNumber, bytes);
  const put = async (target: PlannedPart) => {
    report(0);
    return sending.transport({
      partNumber: part.partNumber,
      url: target.url,
      headers: { ...target.headers, ...digestHeaders },
      body: await sending.read(start, start + part.size),
      size: part.size,
      signal,
      onProgress: report,
    });
  };
  // Fresh URLs are asked for once per part, across its tries.
  const state = { refreshed: false };
  part.etag = await sending.retry(() =>
    putWithFreshUrl(part, {
      put,
      statusOf: (error) => (error instanceof ApiError ? error.status : undefined),
      freshPart: async () => {
        takeFreshUrls(plan, await sending.uploadState(signal));
        return part;
      },
      state,
      signal,
    }),
  );
  report(part.size);
}
