import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { METRICS_PARTS, metricsPartsWithout } from '../../../src/server/metrics/bench-ablation.js';
import { ServiceMetrics } from '../../../src/server/metrics/service-metrics.js';

/** The metric families a scrape names (`# TYPE` lines). */
async function families(metrics: ServiceMetrics): Promise<string[]> {
  const { body } = await metrics.scrape();
  return [...body.matchAll(/^# TYPE (\S+)/gm)].map((match) => match[1] as string);
}

describe("a bench's parts of metrics taken out (FILEHOST_BENCH_METRICS_WITHOUT)", () => {
  it('reads comma-separated parts, and refuses a word that names none', () => {
    assert.deepEqual([...metricsPartsWithout(undefined)], []);
    assert.deepEqual([...metricsPartsWithout(' clock, memory-count ,')], ['clock', 'memory-count']);
    assert.deepEqual([...metricsPartsWithout(METRICS_PARTS.join(','))], [...METRICS_PARTS]);
    assert.throws(() => metricsPartsWithout('clock,clocks'), /clocks is none of/);
  });

  it('changes nothing when none is taken out: every family, default collectors included', async () => {
    const whole = await families(new ServiceMetrics());
    assert.ok(whole.includes('filehost_http_request_duration_seconds'));
    assert.ok(whole.includes('nodejs_eventloop_lag_seconds'));
    assert.ok(whole.includes('process_resident_memory_bytes'));
  });

  it('leaves out what each part names, and counts the rest', async () => {
    const collectors = new ServiceMetrics(metricsPartsWithout('default-collectors'));
    const named = await families(collectors);
    assert.ok(named.includes('filehost_http_requests_total'));
    assert.ok(!named.some((name) => name.startsWith('nodejs_') || name.startsWith('process_')));

    const unregistered = new ServiceMetrics(metricsPartsWithout('registered-metrics'));
    unregistered.http.answered('cdn', '/:id', 'GET', 200, 0.001);
    assert.deepEqual(await families(unregistered), []);
    assert.equal(unregistered.http.cell('cdn', '/:id', 'GET', 200).count, 1);

    assert.equal(typeof new ServiceMetrics().http.parserRefusals('cdn'), 'function');
    const refusals = new ServiceMetrics(metricsPartsWithout('parser-refusals'));
    assert.equal(refusals.http.parserRefusals('cdn'), undefined);
  });
});
