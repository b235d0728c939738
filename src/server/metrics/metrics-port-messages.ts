/** What the metrics port's worker (`metrics-port-worker.ts`) tells the service's thread. */
export type FromMetricsPort =
  | { kind: 'listening'; address: string; family: string; port: number }
  /** `listen` failed: the error's fields, to be rebuilt as the error it was. */
  | {
      kind: 'failed';
      message: string;
      code: string | undefined;
      syscall: string | undefined;
      address: string | undefined;
      port: number | undefined;
    }
  /** A scraper asked; `id` names the answer. */
  | { kind: 'scrape'; id: number };

/** What the service's thread tells the worker. */
export type ToMetricsPort =
  | { kind: 'scraped'; id: number; body: string; contentType: string }
  | { kind: 'unscraped'; id: number; message: string }
  | { kind: 'close' };
