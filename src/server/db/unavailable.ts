/**
 * The metadata store cannot answer right now (its database is unreachable, restarting,
 * out of connections or too slow), as opposed to answering "no" or being misused. The
 * HTTP layer turns it into 503 `unavailable`, so clients retry instead of seeing a 500;
 * `cause` keeps the driver's error for the logs.
 */
export class MetadataUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'MetadataUnavailableError';
  }
}
