import { MAX_BATCH } from '../api/limits.js';
import type {
  CompleteBatchRequest,
  CompleteRequest,
  FileRecord,
  SignRequest,
  SignResponse,
} from '../api/types.js';
import { ApiError } from './api-error.js';
import { Batcher, eachAlone } from './batcher.js';
import type { ClaimedPart } from './upload-plan.js';

interface CallOptions {
  signal?: AbortSignal;
}

/**
 * The calls a session makes: `FilehostApi`'s, named here by their shape so that the client
 * (which makes a session) and the session do not import each other.
 */
export interface UploadCalls {
  sign(request: SignRequest, options?: CallOptions): Promise<SignResponse>;
  signMany(files: SignRequest[], options?: CallOptions): Promise<SignResponse[]>;
  complete(
    id: string,
    request?: CompleteRequest,
    options?: CallOptions & { uploadToken?: string | null },
  ): Promise<FileRecord>;
  completeMany(
    uploads: CompleteBatchRequest['uploads'],
    options?: CallOptions,
  ): Promise<({ file: FileRecord; error?: undefined } | { file?: undefined; error: ApiError })[]>;
}

/** How long a sign or complete waits for others to join it; short enough not to be seen. */
const BATCH_WINDOW_MS = 15;
/**
 * The first sign of a burst carries this many files (more than the 6 connections a browser
 * opens), so their PUTs start while the rest are signed in calls of 32, then 100.
 */
const FIRST_SIGN_BATCH = 8;

/** A file signed: its sign answer, and whether a batch call signed it. */
export interface Signed {
  signed: SignResponse;
  /**
   * Signed in a batch: its completion goes by the batch call even alone, whose CORS
   * preflight a browser has cached by then (the single route's it has not).
   */
  together: boolean;
}

/** One upload to complete, as `UploadSession.complete` takes it. */
export interface CompleteJob extends CallOptions {
  id: string;
  /** What its sign answered (needed with a publishable key). */
  uploadToken: string | null;
  /** The parts with the ETags their PUTs answered; none: the service takes what it holds. */
  parts?: ClaimedPart[];
  /** Signed in a batch (`Signed.together`). */
  together?: boolean;
}

interface SignJob extends CallOptions {
  request: SignRequest;
  together?: boolean;
}

/**
 * The sign and complete steps of the multi-step upload for one endpoint and key, shared by
 * every uploader of the package (`FilehostClient.uploadFiles` and `<file-uploader>`):
 * calls made close together go as one batch call (`POST /v1/uploads/sign` with `files`,
 * `POST /v1/uploads/complete`), so a page of small files costs about one request per file
 * instead of three. A lone file goes by the single calls.
 *
 * Each call resolves or fails on its own: a batch sign refused for one file (the error's
 * `index`) fails that file with the error a single sign would give it, and signs the others
 * again together; a batch complete answers each upload's own result. A batch call that
 * fails as a whole fails each of its files; retrying is the caller's (each by its rules).
 * A file stopped (its `signal`) while its call gathers others is left out of it: a file
 * removed within the window is neither signed (an unfinished upload the service counts
 * against the address) nor completed.
 */
export class UploadSession {
  readonly api: UploadCalls;
  readonly #sign: Batcher<SignJob, SignResponse>;
  readonly #complete: Batcher<CompleteJob, FileRecord>;

  constructor(api: UploadCalls) {
    this.api = api;
    const windowMs = BATCH_WINDOW_MS;
    this.#sign = new Batcher((jobs) => this.#signAll(jobs), {
      windowMs,
      max: MAX_BATCH,
      first: FIRST_SIGN_BATCH,
    });
    this.#complete = new Batcher((jobs) => this.#completeAll(jobs), { windowMs, max: MAX_BATCH });
  }

  async sign(request: SignRequest, options: CallOptions = {}): Promise<Signed> {
    const job: SignJob = { request, signal: options.signal };
    const signed = await this.#sign.add(job, options.signal);
    return { signed, together: job.together === true };
  }

  complete(job: CompleteJob): Promise<FileRecord> {
    return this.#complete.add(job, job.signal);
  }

  #signAll(jobs: SignJob[]): Promise<PromiseSettledResult<SignResponse>[]> {
    if (jobs.length === 1) return eachAlone(jobs, (job) => this.api.sign(job.request, job));
    return this.#signTogether(jobs);
  }

  async #signTogether(jobs: SignJob[]): Promise<PromiseSettledResult<SignResponse>[]> {
    try {
      const answers = await this.api.signMany(jobs.map((job) => job.request));
      for (const job of jobs) job.together = true;
      return answers.map((value) => ({ status: 'fulfilled', value }));
    } catch (error) {
      const at = error instanceof ApiError ? error.details.index : undefined;
      if (typeof at !== 'number' || !jobs[at]) throw error;
      // All or nothing: the others are signed again together, and the refused file alone,
      // so that it meets exactly the error a single sign gives it.
      const refused = jobs[at] as SignJob;
      const [results, [alone]] = await Promise.all([
        this.#signAll(jobs.filter((job) => job !== refused)),
        eachAlone([refused], (job) => this.api.sign(job.request, job)),
      ]);
      results.splice(at, 0, alone as PromiseSettledResult<SignResponse>);
      return results;
    }
  }

  async #completeAll(jobs: CompleteJob[]): Promise<PromiseSettledResult<FileRecord>[]> {
    if (jobs.length === 1 && !jobs[0]?.together) {
      return eachAlone(jobs, (job) =>
        this.api.complete(job.id, job.parts ? { parts: job.parts } : {}, job),
      );
    }
    const results = await this.api.completeMany(
      jobs.map(({ id, uploadToken, parts }) => ({
        id,
        ...(uploadToken ? { uploadToken } : {}),
        ...(parts ? { parts } : {}),
      })),
    );
    return results.map((result) =>
      result.file
        ? { status: 'fulfilled', value: result.file }
        : { status: 'rejected', reason: result.error },
    );
  }
}
