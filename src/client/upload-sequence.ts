import { MAX_UNFINISHED_UPLOADS } from '../api/limits.js';
import type { FileRecord, SignRequest, UploadState } from '../api/types.js';
import { ApiError } from './api-error.js';
import { places } from './concurrency-limit.js';
import { claimedParts, planFromSign, planFromState, type UploadPlan } from './upload-plan.js';
import { type CompleteJob, type UploadCalls, UploadSession } from './upload-session.js';

/**
 * An unfinished upload as an uploader remembers it to resume it later: its id, and the
 * token its sign answered (with a publishable key, the service answers an upload's state
 * and completion only to whoever shows it). The one record of both uploaders: what a
 * `ResumeStore` keeps for `FilehostClient`, and the heart of what `<file-uploader>` keeps
 * in IndexedDB.
 */
export interface RememberedUpload {
  id: string;
  /** Null for uploads remembered before tokens: those resume only with a secret key. */
  token: string | null;
}

/** The calls a sequence makes: the session's, and an upload's state (resume). */
export interface SequenceCalls extends UploadCalls {
  getUpload(
    id: string,
    options?: { signal?: AbortSignal; uploadToken?: string | null },
  ): Promise<UploadState>;
}

/** Runs one call of the sequence (sign, state, complete), retried as the uploader decides. */
export type Attempts = <T>(call: () => Promise<T>) => Promise<T>;

/** One file's way into the sequence: what `prepare` needs to find or make its upload. */
export interface SequenceJob {
  /** What a sign is told of the file (asked only when a new upload is signed). */
  request: () => SignRequest;
  /** An upload known from before (remembered, or named by the caller): resumed if it can be. */
  known?: RememberedUpload | null;
  /**
   * Hears first of a known upload the service no longer holds (`not_found`: expired, or
   * deleted) and may stop there by throwing; else a new upload is signed.
   */
  forgotten?: (error: ApiError) => void | Promise<void>;
  /** A known upload signed by a batch call: completed by one too (`Signed.together`). */
  together?: boolean;
  /** Each call of the sequence; default: once (the element retries whole attempts). */
  attempts?: Attempts;
  signal?: AbortSignal;
}

/** The upload a file goes by, as `prepare` found or made it. */
export interface Prepared {
  plan: UploadPlan;
  /** What the service held of a known upload; null: signed now. */
  state: UploadState | null;
  /** Signed by a batch call: completed by one too (`Signed.together`). */
  together: boolean;
}

const once: Attempts = (call) => call();

/**
 * The multi-step upload's sequence around the bytes, written once for both uploaders of the
 * package: `FilehostClient.uploadFile` / `uploadFiles` and `<file-uploader>`'s engine. Like
 * the one queue of Uppy's aws-s3 plugin, it owns the steps that are not the part PUTs:
 * resume a known upload or sign a new one (signs made close together go as one batch call,
 * through the endpoint's `UploadSession`), complete (batched the same way), and the cap of
 * `MAX_UNFINISHED_UPLOADS` uploads signed and not finished (the service caps anonymous
 * pending uploads per address). Their order is `runSequence`'s; sending the parts is the
 * caller's (`sendParts` in the client, Uppy in the element), its `send` step; so is remembering (a
 * `ResumeStore`, IndexedDB), told through the job's hooks. Token renewal lives in the calls
 * themselves (`FilehostApi`'s `TokenSource`), which every step goes through.
 */
export class UploadSequence {
  readonly api: SequenceCalls;
  readonly session: UploadSession;
  /**
   * Places among the uploads signed and not finished, each held from before its sign until
   * it completes or fails: shared by every sequence of one uploader (an element with
   * several endpoints holds one set, since the service counts per address).
   */
  readonly pending: () => Promise<() => void>;

  constructor(api: SequenceCalls, options: { pending?: () => Promise<() => void> } = {}) {
    this.api = api;
    this.session = new UploadSession(api);
    this.pending = options.pending ?? places(MAX_UNFINISHED_UPLOADS);
  }

  /**
   * The upload a file goes by: for a known upload, what the service still holds of it
   * (fresh URLs for the parts it lacks); else, or when the service no longer knows it
   * (`forgotten` heard first), a new upload signed now. Any other failure is thrown.
   */
  async prepare(job: SequenceJob): Promise<Prepared> {
    const attempts = job.attempts ?? once;
    const { known, signal } = job;
    if (known) {
      try {
        const state = await attempts(() =>
          this.api.getUpload(known.id, { signal, uploadToken: known.token }),
        );
        return { plan: planFromState(state, known.token), state, together: job.together === true };
      } catch (error) {
        if (!(error instanceof ApiError && error.code === 'not_found')) throw error;
        await job.forgotten?.(error);
      }
    }
    const { signed, together } = await attempts(() => this.session.sign(job.request(), { signal }));
    return { plan: planFromSign(signed), state: null, together };
  }

  /** Completes an upload whose bytes are in (batched with others finishing close to it). */
  finish(job: CompleteJob, attempts: Attempts = once): Promise<FileRecord> {
    return attempts(() => this.session.complete(job));
  }
}

/**
 * A file's whole upload through `sequence`, the one place that says the order of the steps:
 * a place among the pending uploads, `prepare`, `send` (skipped when the service holds every
 * byte already), `finish`. Both uploaders go by it: `FilehostClient.uploadFile` sends the parts
 * itself, `<file-uploader>`'s engine hands them to Uppy's uploaders and waits for them.
 * `signed` hears of a new upload as soon as it is signed (to remember it).
 */
export async function runSequence(
  sequence: UploadSequence,
  job: SequenceJob & { signed?: (plan: UploadPlan, together: boolean) => Promise<void> | void },
  send: (plan: UploadPlan) => Promise<void>,
): Promise<FileRecord> {
  const release = await sequence.pending();
  try {
    const { plan, state, together } = await sequence.prepare(job);
    if (!state) await job.signed?.(plan, together);
    const ready = state?.status === 'ready';
    if (!ready) await send(plan);
    return await sequence.finish(
      {
        id: plan.uploadId,
        uploadToken: plan.uploadToken,
        // Every byte was there already: the service completes with the parts it holds.
        parts: ready ? undefined : claimedParts(plan),
        together,
        signal: job.signal,
      },
      job.attempts,
    );
  } finally {
    release();
  }
}
