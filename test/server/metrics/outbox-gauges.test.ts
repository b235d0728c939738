import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type OutboxBacklog,
  type ScrapeSources,
  ServiceMetrics,
} from '../../../src/server/metrics/service-metrics.js';
import { parseExposition, sampleValue } from '../../helpers/metrics-scrape.js';

const NOW = 1_000_000;

/** Sources whose outbox is whatever the test last set, counting the queries asked. */
function sourcesOf(state: { backlog: OutboxBacklog | Error; asked: number }): ScrapeSources {
  return {
    outbox: async () => {
      state.asked++;
      // A query's answer comes later than the registry's synchronous reads.
      await new Promise((resolve) => setImmediate(resolve));
      if (state.backlog instanceof Error) throw state.backlog;
      return state.backlog;
    },
    variants: () => ({ running: 0, queued: 0, refused: 0, abandoned: 0 }),
    scans: () => null,
    cdnCache: () => ({ entries: 0, bytes: 0 }),
    now: () => NOW,
    warn: () => {},
  };
}

describe("the webhook outbox's gauges", () => {
  it('show what the database holds at this scrape, both from one query', async () => {
    const metrics = new ServiceMetrics();
    const state: { backlog: OutboxBacklog | Error; asked: number } = {
      backlog: { pending: 2, oldestDueAt: NOW - 2_500 },
      asked: 0,
    };
    metrics.watch(sourcesOf(state));
    const read = async () => {
      const samples = parseExposition((await metrics.scrape()).body);
      return [
        sampleValue(samples, 'filehost_webhook_outbox_pending'),
        sampleValue(samples, 'filehost_webhook_outbox_oldest_due_seconds'),
      ];
    };
    assert.deepEqual(await read(), [2, 2.5]);
    assert.equal(state.asked, 1);
    // The due one was tried and is due again in 5 s: nothing waits past its time now.
    state.backlog = { pending: 1, oldestDueAt: NOW + 5_000 };
    assert.deepEqual(await read(), [1, 0]);
    state.backlog = { pending: 0, oldestDueAt: null };
    assert.deepEqual(await read(), [0, 0]);
    assert.equal(state.asked, 3);
    // The database did not answer: no value, rather than the last one.
    state.backlog = new Error('connection refused');
    const [pending, age] = await read();
    assert.ok(Number.isNaN(pending) && Number.isNaN(age), `${pending}, ${age}`);
  });
});
