/**
 * The metadata store cannot answer right now (its database is unreachable, restarting,
 * out of connections or too slow), as opposed to answering "no" or being misused. The
 * HTTP layer turns it into 503 `unavailable`, so clients retry instead of seeing a 500;
 * `cause` keeps the driver's error for the logs.
 */
export class MetadataUnavailableError extends Error {
  /** What an operator can do about it, when the store knows better than the generic advice. */
  readonly remedy: string | undefined;

  constructor(message: string, options?: { cause?: unknown; remedy?: string }) {
    super(message, options);
    this.name = 'MetadataUnavailableError';
    this.remedy = options?.remedy;
  }
}
