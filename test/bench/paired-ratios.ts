import { median } from './support.js';

/**
 * What a set of paired ratios (one per fresh pair of processes, B over A) says about a goal
 * such as "B is within 3% of A": the median, the interquartile range, and a distribution-free
 * confidence interval of the median.
 *
 * The interval is the sign test's (order statistics `x(k)` and `x(n-k+1)` of the sorted
 * ratios, `k` the largest with P(Binomial(n, 1/2) < k) <= 2.5%): exact for any
 * distribution of the ratios, so long as pairs are independent, which fresh processes per
 * pair make them. Below 6 pairs no such interval reaches 95%: the whole range is given, with
 * the confidence it really has.
 */
export interface RatioSummary {
  count: number;
  median: number;
  /** The 25th and 75th percentiles (linear between ranks). */
  quartiles: [number, number];
  /** The interval of the median, and the confidence it holds (at least 0.95 when `count` >= 6). */
  interval: { low: number; high: number; confidence: number };
}

export function summariseRatios(ratios: readonly number[]): RatioSummary {
  if (ratios.length === 0) throw new Error('no ratios to summarise');
  const sorted = [...ratios].sort((a, b) => a - b);
  const n = sorted.length;
  const k = signTestRank(n);
  return {
    count: n,
    median: median(sorted),
    quartiles: [quantile(sorted, 0.25), quantile(sorted, 0.75)],
    interval: {
      low: sorted[k - 1] as number,
      high: sorted[n - k] as number,
      confidence: 1 - 2 * binomialHalfCdf(n, k - 1),
    },
  };
}

/**
 * The rank `k` (1-based) of the sign-test interval for `n` values: the largest with
 * P(X <= k - 1) <= 0.025, X ~ Binomial(n, 1/2); 1 (the whole range) when none is.
 */
export function signTestRank(n: number): number {
  let k = 1;
  while (k + 1 <= Math.ceil(n / 2) && binomialHalfCdf(n, k) <= 0.025) k++;
  return k;
}

/** P(X <= k) for X ~ Binomial(n, 1/2). */
export function binomialHalfCdf(n: number, k: number): number {
  let term = 0.5 ** n; // C(n, 0) / 2^n
  let sum = 0;
  for (let i = 0; i <= k; i++) {
    sum += term;
    term = (term * (n - i)) / (i + 1);
  }
  return Math.min(sum, 1);
}

/** The `p` quantile of sorted values, interpolated between ranks (as R's default, type 7). */
function quantile(sorted: readonly number[], p: number): number {
  const at = (sorted.length - 1) * p;
  const below = Math.floor(at);
  const low = sorted[below] as number;
  const high = sorted[Math.min(below + 1, sorted.length - 1)] as number;
  return low + (high - low) * (at - below);
}

/**
 * The verdict on "B / A is at least `floor`" (0.97: within 3%), from an interval of at least
 * 95%: shown when all of it is at or above the floor, refuted when all of it is below, else
 * undecided (more pairs, or a quieter machine, would narrow it). Fewer than 6 pairs decide
 * nothing.
 */
export function verdict(summary: RatioSummary, floor: number): string {
  const { low, high, confidence } = summary.interval;
  const within = `within ${Math.round((1 - floor) * 100)}%`;
  const level = `${(confidence * 100).toFixed(1)}% interval`;
  if (confidence < 0.95)
    return `${within}: not decided (${summary.count} pair${summary.count === 1 ? '' : 's'} give${summary.count === 1 ? 's' : ''} only a ${level}: 6 or more are needed)`;
  if (low >= floor) return `${within}: shown (the ${level} is at or above ${floor})`;
  if (high < floor) return `${within}: refuted (the ${level} is below ${floor})`;
  return `${within}: not decided (the ${level} holds ${floor})`;
}
