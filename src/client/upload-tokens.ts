import { ApiError } from './api-error.js';
import type {
  TokenSource,
  UploadTokenGrant,
  UploadTokenLimits,
  UploadTokenProvider,
} from './upload-token.js';

/** What a page hears of its token: a provider that failed, a grant with its limits. */
export interface UploadTokenHooks {
  /** Each failed provider call, once, with the provider's error as the `cause`. */
  failed?: (error: ApiError) => void;
  /** Each token the provider gave (its limits, if it came with them, in `limits`). */
  granted?: () => void;
}

/** A token's limits, and what is left of them after the uploads counted (`count`). */
export interface TokenAllowance extends UploadTokenLimits {
  filesLeft: number | null;
  bytesLeft: number | null;
}

/**
 * Renewed this long before its `expiresAt`: a call on its way, or a clock a little ahead
 * of the service's, then never meets the expiry.
 */
const RENEW_EARLY_MS = 30_000;

/**
 * A client's upload token: the one it was given, and its provider's when there is none yet,
 * when it is about to run out, or when the service refused it as expired. Calls that meet
 * the expiry together cause one provider call, which they all wait for.
 */
export class UploadTokens implements TokenSource {
  #token: string | null;
  #expiresAt: number | null = null;
  readonly #provider: UploadTokenProvider | null;
  readonly #hooks: UploadTokenHooks;
  #asking: Promise<string> | null = null;
  /** The current token's limits, when its grant came with them. */
  #limits: UploadTokenLimits | null = null;
  #used = { files: 0, bytes: 0 };

  /**
   * `hooks.failed` hears each failed provider call once (however many calls waited on it),
   * with the provider's own error as the `cause`: the element logs it for the page's author.
   */
  constructor(
    token: string | null | undefined,
    provider?: UploadTokenProvider | null,
    hooks: UploadTokenHooks = {},
  ) {
    this.#token = token?.trim() || null;
    this.#provider = provider ?? null;
    this.#hooks = hooks;
    if (!this.#token && !this.#provider) {
      throw new TypeError('UploadTokens: give a token or a tokenProvider.');
    }
  }

  async send<T>(call: (auth: Record<string, string>) => Promise<T>): Promise<T> {
    const token = await this.current();
    try {
      return await call(bearer(token));
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 'token_expired')) throw error;
      const fresh = await this.renew(token);
      if (!fresh) throw error;
      return call(bearer(fresh));
    }
  }

  /** The token to send now. */
  current(): Promise<string> {
    const token = this.#token;
    const fresh = this.#expiresAt === null || Date.now() < this.#expiresAt - RENEW_EARLY_MS;
    if (token && (fresh || !this.#provider)) return Promise.resolve(token);
    return this.#ask();
  }

  /** A new token after `stale` was refused as expired; null when nobody can give one. */
  async renew(stale: string): Promise<string | null> {
    if (!this.#provider) return null;
    // Another call met the expiry first: its new token serves this one too.
    if (this.#token !== stale) return this.current();
    this.#token = null;
    return this.#ask();
  }

  #ask(): Promise<string> {
    this.#asking ??= this.#fromProvider().finally(() => {
      this.#asking = null;
    });
    return this.#asking;
  }

  async #fromProvider(): Promise<string> {
    let grant: UploadTokenGrant;
    try {
      grant = await (this.#provider as UploadTokenProvider)();
    } catch (error) {
      throw this.#failed(`the tokenProvider failed (${String(error)})`, error);
    }
    const token = typeof grant === 'string' ? grant : grant?.token;
    if (typeof token !== 'string' || token.trim() === '') {
      throw this.#failed('the tokenProvider answered no token', grant);
    }
    this.#token = token.trim();
    this.#expiresAt = typeof grant === 'object' ? (grant.expiresAt ?? null) : null;
    // A new token's limits are its own, counted afresh by the service.
    this.#limits = typeof grant === 'object' ? limitsOf(grant) : null;
    this.#used = { files: 0, bytes: 0 };
    this.#hooks.granted?.();
    return this.#token;
  }

  /**
   * The current token's limits and what is left of them, when its grant came with them;
   * else null. What is left counts the uploads `count` was told of (those of this client).
   */
  get allowance(): TokenAllowance | null {
    const limits = this.#limits;
    if (!limits) return null;
    const left = (max: number | null, used: number) =>
      max === null ? null : Math.max(0, max - used);
    return {
      ...limits,
      filesLeft: left(limits.maxFiles, this.#used.files),
      bytesLeft: left(limits.maxBytes, this.#used.bytes),
    };
  }

  /** A file of `bytes` was uploaded with the current token. */
  count(bytes: number): void {
    this.#used = { files: this.#used.files + 1, bytes: this.#used.bytes + bytes };
  }

  /**
   * No token to upload with, because the page's own provider failed (threw, or answered no
   * token: a 404 of its backend's route, a page of HTML): `token_provider_failed`, never
   * worded as an expired token, which would send the person to sign in again for a fault
   * of the page. Status 0: the service never answered.
   */
  #failed(why: string, cause: unknown): ApiError {
    const error = new ApiError(0, 'token_provider_failed', `No upload token: ${why}.`, { cause });
    this.#hooks.failed?.(error);
    return error;
  }
}

function bearer(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}` };
}

/** The limits a grant came with; null when it named none (a backend that passed the token alone). */
function limitsOf(grant: Partial<UploadTokenLimits>): UploadTokenLimits | null {
  const { maxFiles = null, maxFileSize = null, maxBytes = null, types = null } = grant;
  const named = ['maxFiles', 'maxFileSize', 'maxBytes', 'types'].some((key) => key in grant);
  return named ? { maxFiles, maxFileSize, maxBytes, types } : null;
}
