import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Histogram, Registry } from 'prom-client';
import { CellHistogram } from '../../../src/server/metrics/histogram-cells.js';
import { DURATION_BUCKETS } from '../../../src/server/metrics/http-traffic.js';

/**
 * The CDN's histograms keep their own cells (no label hashing per observation); what they
 * print must be exactly what prom-client's own histogram prints for the same observations.
 */
describe('CellHistogram', () => {
  it("prints what prom-client's Histogram prints for the same observations", async () => {
    const observation = fc.record({
      // A value to escape too (backslash, newline, double quote), as a label printed once per
      // cell must be printed as prom-client prints it at every scrape.
      route: fc.constantFrom('/:id', '/:id/*', 'unmatched', 'a"b\\c\nd'),
      status: fc.constantFrom('200', '206', '304', '404'),
      // Exactly on a bound, between bounds, past the last, and zero.
      seconds: fc.oneof(
        fc.constantFrom(0, ...DURATION_BUCKETS, 1000),
        fc.double({ min: 0, max: 400, noNaN: true }),
      ),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(observation, { maxLength: 60 }), async (observations) => {
        const ours = new Registry();
        const theirs = new Registry();
        const cells = new CellHistogram({
          name: 'x_seconds',
          help: 'h',
          labelNames: ['route', 'status'],
          buckets: DURATION_BUCKETS,
          registers: [ours],
        });
        const reference = new Histogram({
          name: 'x_seconds',
          help: 'h',
          labelNames: ['route', 'status'],
          buckets: DURATION_BUCKETS,
          registers: [theirs],
        });
        const made = new Map<string, ReturnType<typeof cells.cell>>();
        for (const { route, status, seconds } of observations) {
          const key = `${route} ${status}`;
          let cell = made.get(key);
          if (!cell) {
            cell = cells.cell({ route, status });
            made.set(key, cell);
          }
          cell.observe(seconds);
          reference.observe({ route, status }, seconds);
        }
        // Series in the same order: prom-client prints them as first observed, as we do.
        assert.equal(await ours.metrics(), await theirs.metrics());
      }),
      { numRuns: 200 },
    );
  });
});
