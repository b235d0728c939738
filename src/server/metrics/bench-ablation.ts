/**
 * Parts of "metrics on" that `bench:serving` can take out of a service one at a time
 * (`BENCH_METRICS_WITHOUT`, test/bench/serving-metrics.ts), to find by ablation which of them
 * costs the CDN what a pair of services measures. Read from `FILEHOST_BENCH_METRICS_WITHOUT`
 * (comma-separated): a bench's switch, not an operator's; a service with any part taken out
 * no longer shows every metric docs/service.md lists.
 */
export const METRICS_PARTS = [
  /** The memory path's counting call (`countMemoryAnswer`). */
  'memory-count',
  /** The metrics port's server (nothing listens; nothing can be scraped). */
  'metrics-server',
  /** Every metric: made, counted into, but none registered (the registry stays empty). */
  'registered-metrics',
  /** prom-client's default collectors (`collectDefaultMetrics`). */
  'default-collectors',
  /** The servers' `clientErrorHandler` told of parser refusals. */
  'parser-refusals',
  /** The memory path's clock reads (`performance.now()`): its durations are counted as 0. */
  'clock',
] as const;

export type MetricsPart = (typeof METRICS_PARTS)[number];

/** The parts `text` names; throws on a word that names none, so a typo measures nothing silently. */
export function metricsPartsWithout(text: string | undefined): ReadonlySet<MetricsPart> {
  const words = (text ?? '')
    .split(',')
    .map((word) => word.trim())
    .filter((word) => word !== '');
  for (const word of words) {
    if (!(METRICS_PARTS as readonly string[]).includes(word)) {
      throw new Error(
        `FILEHOST_BENCH_METRICS_WITHOUT: ${word} is none of ${METRICS_PARTS.join(', ')}`,
      );
    }
  }
  return new Set(words as MetricsPart[]);
}
