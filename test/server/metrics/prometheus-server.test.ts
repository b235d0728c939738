// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { UploadResponse } from '../../../src/api/types.js';
import { startPrometheus, type TestPrometheus } from '../../helpers/prometheus.js';
import { json, patternBytes, startTestService, type TestService } from '../../helpers/service.js';

const service = await startTestService({ FILEHOST_METRICS_PORT: '0' });
const prometheus = await startPrometheus([new URL(service.service.metricsUrl as string).host]);

/**
 * A real Prometheus server (Debian's) scraping a running service every second: what an
 * operator's dashboards and alerts read must move when the service works.
 */
describe('a Prometheus server scraping the service', {
  skip: 'skip' in prometheus ? prometheus.skip : false,
}, () => {
  let t: TestService;
  let server: TestPrometheus;

  before(async () => {
    t = service;
    server = prometheus as TestPrometheus;
    await server.waitForScrapes(2);
  });
  after(async () => {
    await (prometheus as Partial<TestPrometheus>).stop?.();
    await service.close();
  });

  it('sees upload and CDN request rates move, and the target up', async () => {
    const up = await server.query('up{job="filehost"}');
    assert.deepEqual(
      up.map((series) => series.value),
      [1],
    );
    // Nothing counted yet: the series may not even exist.
    const quiet = await server.query(
      'sum(increase(filehost_http_requests_total{server="cdn",status="200"}[1m]))',
    );
    assert.ok((quiet[0]?.value ?? 0) === 0, JSON.stringify(quiet));

    const files: UploadResponse[] = [];
    const upload = async (index: number) =>
      json<UploadResponse>(
        await t.api('/v1/upload', {
          method: 'POST',
          body: patternBytes(4096, index),
          headers: { 'Content-Type': 'application/octet-stream' },
        }),
        201,
      );
    // A request's series appears with its first answer, and `increase` counts from a
    // series' first sample: one of each first, then a baseline Prometheus has seen.
    const first = await upload(99);
    await (await fetch(`${t.cdnUrl}/${first.id}`)).arrayBuffer();
    await server.waitForScrapes(2);
    for (let index = 0; index < 5; index++) files.push(await upload(index));
    for (let round = 0; round < 4; round++) {
      for (const file of files) await (await fetch(`${t.cdnUrl}/${file.id}`)).arrayBuffer();
    }
    // Two scrapes after the work, so `increase` has a before and an after.
    await server.waitForScrapes(2);

    const cdnRequests = await server.query(
      'sum(increase(filehost_http_requests_total{server="cdn",route="/:id",status="200"}[1m]))',
    );
    // `increase` extrapolates to the window's edges: at least what was done, give or take.
    assert.ok((cdnRequests[0]?.value ?? 0) >= 20, JSON.stringify(cdnRequests));
    const uploads = await server.query(
      'sum(increase(filehost_uploads_total{outcome="ready"}[1m]))',
    );
    assert.ok((uploads[0]?.value ?? 0) >= 5, JSON.stringify(uploads));
    const served = await server.query('sum(rate(filehost_cdn_served_bytes_total[1m]))');
    assert.ok((served[0]?.value ?? 0) > 0, JSON.stringify(served));
    // A latency quantile an alert would read exists and is a duration.
    const p99 = await server.query(
      'histogram_quantile(0.99, sum by (le) (rate(filehost_http_request_duration_seconds_bucket{server="cdn"}[1m])))',
    );
    const seconds = p99[0]?.value ?? Number.NaN;
    assert.ok(seconds > 0 && seconds < 60, JSON.stringify(p99));
  });
});
