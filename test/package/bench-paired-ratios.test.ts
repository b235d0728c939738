import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { binomialHalfCdf, signTestRank, summariseRatios, verdict } from '../bench/paired-ratios.js';

/**
 * The statistics `bench:serving`'s metrics mode judges "within 3%" by
 * (`test/bench/paired-ratios.ts`): a wrong interval would let the bench claim what its pairs
 * do not show.
 */
describe("the benches' paired ratios", () => {
  it('takes the order statistics the sign test tables give', () => {
    // Nonparametric tables: n = 6 -> 1st and 6th (96.9%), n = 10 -> 2nd and 9th (97.9%),
    // n = 20 -> 6th and 15th (95.9%), n = 30 -> 10th and 21st (95.7%).
    assert.equal(signTestRank(6), 1);
    assert.equal(signTestRank(10), 2);
    assert.equal(signTestRank(20), 6);
    assert.equal(signTestRank(30), 10);
    const ratios = Array.from({ length: 20 }, (_, index) => 0.9 + index / 100);
    const summary = summariseRatios([...ratios].reverse());
    assert.equal(summary.interval.low, ratios[5]);
    assert.equal(summary.interval.high, ratios[14]);
    assert.ok(Math.abs(summary.interval.confidence - 0.9586) < 0.0001);
  });

  it('reaches 95% from 6 pairs on, with the largest rank that does', () => {
    for (let n = 6; n <= 200; n++) {
      const k = signTestRank(n);
      assert.ok(1 - 2 * binomialHalfCdf(n, k - 1) >= 0.95, `n=${n}`);
      assert.ok(1 - 2 * binomialHalfCdf(n, k) < 0.95, `n=${n}: k=${k} is not the largest`);
    }
  });

  it('gives fewer pairs the whole range and says how sure that is', () => {
    const summary = summariseRatios([1.02, 0.95, 0.99, 1.01, 0.97]);
    assert.deepEqual([summary.interval.low, summary.interval.high], [0.95, 1.02]);
    assert.equal(summary.interval.confidence, 1 - 2 / 32);
    assert.equal(summary.median, 0.99);
    assert.deepEqual(summary.quartiles, [0.97, 1.01]);
  });

  it('orders interval, quartiles and median for any ratios', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0.1, max: 10, noNaN: true }), { minLength: 1, maxLength: 60 }),
        (ratios) => {
          const { median, quartiles, interval } = summariseRatios(ratios);
          assert.ok(quartiles[0] <= median && median <= quartiles[1]);
          assert.ok(interval.low <= median && median <= interval.high);
          assert.ok(Math.min(...ratios) <= interval.low && interval.high <= Math.max(...ratios));
        },
      ),
    );
  });

  it('holds the true median as often as it says (drawn from a skewed distribution)', () => {
    // Log-normal ratios around a true median of 0.98: 4,000 benches of 15 pairs.
    // mulberry32: the same draws on every run.
    let seed = 12_345;
    const uniform = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 2 ** 32;
    };
    const normal = () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
    let held = 0;
    const trials = 4_000;
    for (let trial = 0; trial < trials; trial++) {
      const ratios = Array.from({ length: 15 }, () => 0.98 * Math.exp(0.05 * normal()));
      const { interval } = summariseRatios(ratios);
      if (interval.low <= 0.98 && 0.98 <= interval.high) held++;
    }
    const confidence = summariseRatios(Array(15).fill(1)).interval.confidence;
    assert.ok(confidence >= 0.95);
    // The sign test's coverage is exact for continuous data: within sampling error of it.
    assert.ok(Math.abs(held / trials - confidence) < 0.015, `held ${held} of ${trials}`);
  });

  it('judges a goal only by the whole interval', () => {
    // Seven pairs: the interval is their whole range (99.2%).
    const around = (low: number, high: number) =>
      summariseRatios([low, low, low, (low + high) / 2, high, high, high]);
    assert.match(verdict(around(0.975, 1.01), 0.97), /within 3%: shown/);
    assert.match(verdict(around(0.9, 0.96), 0.97), /within 3%: refuted/);
    assert.match(verdict(around(0.95, 1.01), 0.97), /within 3%: not decided/);
    // Five pairs all far below: still too few to refute anything.
    assert.match(
      verdict(summariseRatios([0.5, 0.6, 0.7, 0.6, 0.5]), 0.97),
      /not decided \(5 pairs give only a 93.8% interval/,
    );
  });
});
