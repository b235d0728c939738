// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { UploadBatchResponse, UploadResponse } from '../../../src/api/types.js';
import { ApiError, blobSource, FilehostClient } from '../../../src/client/index.js';
import { RETRY_DELAYS_MS } from '../../../src/server/events/retry-schedule.js';
import { answerToBytes } from '../../helpers/answer-to-bytes.js';
import { EICAR, startClamd, type TestClamd } from '../../helpers/clamd.js';
import { cutBatch } from '../../helpers/cut-batch.js';
import { solidImage } from '../../helpers/images.js';
import { type Sample, sampleValue, scrape } from '../../helpers/metrics-scrape.js';
import { prometheusAvailable, promtoolCheck } from '../../helpers/prometheus.js';
import { PUBLIC_STAND_IN, serveRemote } from '../../helpers/remote-server.js';
import { SCALE } from '../../helpers/scale-mode.js';
import {
  ALLOWED_ORIGIN,
  json,
  patternBytes,
  startTestService,
  type TestService,
} from '../../helpers/service.js';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';

const prometheus = prometheusAvailable();

/** The difference of a counter between two scrapes. */
function grew(
  before: Sample[],
  after: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number {
  return sampleValue(after, name, labels) - sampleValue(before, name, labels);
}

async function uploadOne(
  t: TestService,
  bytes: Uint8Array<ArrayBuffer>,
  name: string,
  init: { key?: string; origin?: string } = {},
): Promise<UploadResponse> {
  return json<UploadResponse>(
    await t.api('/v1/upload', {
      method: 'POST',
      body: bytes,
      headers: { 'Content-Type': 'application/octet-stream', 'X-Filename': name },
      ...init,
    }),
    201,
  );
}

describe('metrics are off by default', () => {
  it('serves no /metrics and counts nothing without FILEHOST_METRICS_PORT', async () => {
    const t = await startTestService();
    try {
      assert.equal(t.service.metricsUrl, null);
      assert.equal(t.service.context.metrics, null);
      assert.equal((await fetch(`${t.apiUrl}/metrics`)).status, 404);
      assert.equal((await fetch(`${t.cdnUrl}/metrics`)).status, 404);
    } finally {
      await t.close();
    }
  });
});

describe('metrics on their own port', () => {
  let t: TestService;
  /** The scrape after the uploads, deletes and CDN answers of the test that makes them. */
  let afterActions = '';

  before(async () => {
    t = await startTestService({ FILEHOST_METRICS_PORT: '0' });
  });
  after(async () => {
    await t.close();
  });

  it('are served at /metrics on loopback, without a key, and nowhere else', async () => {
    const url = t.service.metricsUrl as string;
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const answer = await fetch(`${url}/metrics`);
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    assert.equal((await fetch(`${url}/`)).status, 404);
    assert.equal((await fetch(`${url}/metrics`, { method: 'POST' })).status, 405);
    // Not through the API's or the CDN's port.
    assert.equal((await t.api('/metrics')).status, 404);
    assert.equal((await fetch(`${t.cdnUrl}/metrics`)).status, 404);
  });

  it("are answered by a server on a thread of their own, never the service's", async () => {
    // `node:http` publishes each request a server of this thread takes on this channel (the
    // service runs in this test's process). A scrape answered on this thread would leave the
    // CDN's shared `node:http` code slower from then on (metrics/metrics-server.ts).
    const seen: string[] = [];
    const onRequest = (message: unknown) => {
      seen.push((message as { request: IncomingMessage }).request.url ?? '');
    };
    subscribe('http.server.request.start', onRequest);
    try {
      const scraped = await fetch(`${t.service.metricsUrl}/metrics`);
      assert.equal(scraped.status, 200);
      assert.match(await scraped.text(), /^filehost_http_requests_total/m);
      assert.equal((await fetch(`${t.cdnUrl}/missing`)).status, 404);
    } finally {
      unsubscribe('http.server.request.start', onRequest);
    }
    assert.deepEqual(seen, ['/missing'], 'the CDN request was seen here, the scrape was not');
  });

  it('count uploads, deletes and CDN answers by route template', async () => {
    const before = (await scrape(t.service.metricsUrl as string)).samples;
    const small = await uploadOne(t, patternBytes(3000, 1), 'small.bin');
    const client = new FilehostClient({ endpoint: t.apiUrl, apiKey: t.secretKey });
    const parted = await client.uploadFile(blobSource(new Blob([patternBytes(200_000, 2)])));
    for (let index = 0; index < 3; index++) {
      assert.equal((await fetch(`${t.cdnUrl}/${small.id}`)).status, 200);
    }
    assert.equal(
      (await fetch(`${t.cdnUrl}/${small.id}/small.bin`, { method: 'HEAD' })).status,
      200,
    );
    const range = await fetch(`${t.cdnUrl}/${parted.id}`, { headers: { Range: 'bytes=0-99' } });
    assert.equal(range.status, 206);
    await range.arrayBuffer();
    assert.equal((await fetch(`${t.cdnUrl}/${parted.id}`)).status, 200);
    assert.equal((await fetch(`${t.cdnUrl}/f_nothing_here_at_all`)).status, 404);
    assert.equal((await fetch(`${t.cdnUrl}/`)).status, 404);
    assert.equal((await t.api(`/v1/files/${small.id}`, { method: 'DELETE' })).status, 204);
    assert.equal((await t.api('/v1/no/such/route')).status, 404);
    const { text, samples: after } = await scrape(t.service.metricsUrl as string);

    const requests = (labels: Record<string, string>) =>
      grew(before, after, 'filehost_http_requests_total', labels);
    assert.equal(
      requests({ server: 'api', route: '/v1/upload', method: 'POST', status: '201' }),
      1,
    );
    assert.equal(requests({ server: 'api', route: '/v1/uploads/:id/complete', method: 'POST' }), 1);
    assert.equal(requests({ server: 'api', route: '/v1/files/:id', method: 'DELETE' }), 1);
    assert.equal(requests({ server: 'api', route: 'unmatched', status: '404' }), 1);
    assert.equal(requests({ server: 'cdn', route: '/:id', method: 'GET', status: '200' }), 4);
    assert.equal(requests({ server: 'cdn', route: '/:id/*', method: 'HEAD', status: '200' }), 1);
    assert.equal(requests({ server: 'cdn', route: '/:id', method: 'GET', status: '206' }), 1);
    assert.equal(requests({ server: 'cdn', route: '/:id', method: 'GET', status: '404' }), 1);
    assert.equal(requests({ server: 'cdn', route: 'unmatched', status: '404' }), 1);
    // Every request is in its histogram too.
    assert.equal(
      grew(before, after, 'filehost_http_request_duration_seconds_count', { server: 'cdn' }),
      requests({ server: 'cdn' }),
    );
    assert.equal(grew(before, after, 'filehost_uploads_total', { outcome: 'ready' }), 2);
    // Three GETs of 3,000 bytes, 100 of a range, 200,000 whole; a HEAD sends no body.
    assert.equal(grew(before, after, 'filehost_cdn_served_bytes_total'), 3 * 3000 + 100 + 200_000);
    // At scale the parts go straight to the bucket: only the one-request upload passes here.
    const received = grew(before, after, 'filehost_api_received_bytes_total');
    assert.ok(received > (SCALE ? 3000 : 203_000), String(received));
    assert.ok(grew(before, after, 'filehost_cdn_cache_lookups_total', { result: 'hit' }) >= 2);
    assert.ok(grew(before, after, 'filehost_cdn_cache_lookups_total', { result: 'miss' }) >= 1);
    assert.ok(sampleValue(after, 'process_resident_memory_bytes') > 0);
    assert.ok(after.some((sample) => sample.name === 'nodejs_eventloop_lag_seconds'));
    afterActions = text;
  });

  it('pass `promtool check metrics` after those actions', {
    skip: prometheus?.skip ?? false,
  }, async () => {
    assert.ok(afterActions.includes('filehost_uploads_total{outcome="ready"} 2'));
    assert.deepEqual(await promtoolCheck(afterActions), { code: 0, report: '' });
  });

  it('never put an id, a key, a token or a file name in a label', async () => {
    const { token } = await json<{ token: string }>(
      await t.api('/v1/upload-tokens', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      }),
      201,
    );
    const names = ['holiday-2026-kayak.bin', 'tax-return-bob.pdf'];
    const byKey = await uploadOne(t, patternBytes(500, 3), names[0] as string);
    const byToken = await uploadOne(t, patternBytes(600, 4), names[1] as string, {
      key: token,
      origin: ALLOWED_ORIGIN,
    });
    const anonymous = await uploadOne(t, patternBytes(700, 5), 'anon.bin', {
      key: t.publishableKey,
      origin: ALLOWED_ORIGIN,
    });
    const signed = await json<{ url: string }>(
      await t.api(`/v1/files/${byKey.id}/signed-url`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      }),
    );
    for (const file of [byKey, byToken, anonymous]) {
      await (await fetch(`${t.cdnUrl}/${file.id}`)).arrayBuffer();
      await (await fetch(`${t.cdnUrl}/${file.id}/${encodeURIComponent(file.name)}`)).arrayBuffer();
      await (await fetch(`${t.cdnUrl}/${file.id}?w=10`)).arrayBuffer();
      await (await t.api(`/v1/files/${file.id}`)).arrayBuffer();
    }
    await (await fetch(signed.url)).arrayBuffer();
    for (const file of [byKey, byToken]) {
      assert.equal((await t.api(`/v1/files/${file.id}`, { method: 'DELETE' })).status, 204);
    }
    await (await fetch(`${t.cdnUrl}/${byKey.id}`)).arrayBuffer();

    const { samples } = await scrape(t.service.metricsUrl as string);
    const secrets = [
      byKey.id,
      byToken.id,
      anonymous.id,
      ...names,
      'anon.bin',
      token,
      t.secretKey,
      t.publishableKey,
      new URL(signed.url).search.slice(1),
    ];
    const labelValues = new Set(samples.flatMap((sample) => Object.values(sample.labels)));
    for (const value of labelValues) {
      for (const secret of secrets) {
        assert.ok(!value.includes(secret), `the label value ${value} holds ${secret}`);
      }
    }
    // Routes are templates: no label value holds an id's shape at all.
    const routes = new Set(samples.flatMap((sample) => sample.labels.route ?? []));
    for (const route of routes) assert.doesNotMatch(route, /[A-Za-z0-9]{12,}/, route);
    assert.ok(routes.has('/v1/files/:id'));
  });

  it('are each listed in docs/service.md with their type', async () => {
    const documented = readFileSync('docs/service.md', 'utf8');
    const { text } = await scrape(t.service.metricsUrl as string);
    const families = [...text.matchAll(/^# TYPE (filehost_\w+) (\w+)$/gm)];
    assert.ok(families.length >= 15, `only ${families.length} metrics`);
    for (const [, name, type] of families) {
      assert.ok(
        documented.includes(`| \`${name}\` | ${type} |`),
        `${name} (${type}) is not in docs/service.md`,
      );
    }
  });

  it('count variant encodes by format', async () => {
    const before = (await scrape(t.service.metricsUrl as string)).samples;
    const image = await uploadOne(t, new Uint8Array(await solidImage('png', 64, 48)), 'red.png');
    assert.equal((await fetch(`${t.cdnUrl}/${image.id}?w=20&format=webp`)).status, 200);
    const after = (await scrape(t.service.metricsUrl as string)).samples;
    assert.equal(
      grew(before, after, 'filehost_variant_encode_duration_seconds_count', { format: 'webp' }),
      1,
    );
    assert.equal(sampleValue(after, 'filehost_variant_encodes', { state: 'queued' }), 0);
  });

  it('count each file of a batch upload by its own outcome, a batch broken off included', async () => {
    const uploads = async () => (await scrape(t.service.metricsUrl as string)).samples;
    const batch = (entries: { size: number }[], bodies: Uint8Array<ArrayBuffer>[]) => {
      const form = new FormData();
      form.append(
        'files',
        JSON.stringify(entries.map((entry, index) => ({ name: `f${index}.bin`, ...entry }))),
      );
      for (const bytes of bodies) form.append('file', new Blob([bytes]), 'part');
      return t.api('/v1/upload/batch', { method: 'POST', body: form });
    };
    let before = await uploads();
    // One stored, one of the wrong size, one whose bytes never came: answered 200 per file.
    const { results } = await json<UploadBatchResponse>(
      await batch(
        [{ size: 1000 }, { size: 10 }, { size: 500 }],
        [patternBytes(1000, 1), patternBytes(12, 2)],
      ),
      200,
    );
    assert.deepEqual(
      results.map((result) => result.file?.status ?? result.error?.code),
      ['ready', 'size_mismatch', 'missing_file'],
    );
    let after = await uploads();
    assert.equal(grew(before, after, 'filehost_uploads_total', { outcome: 'ready' }), 1);
    assert.equal(grew(before, after, 'filehost_uploads_total', { outcome: 'refused' }), 2);
    assert.equal(grew(before, after, 'filehost_uploads_total', { outcome: 'failed' }), 0);

    // Refused whole once its two files were reserved (more parts than entries): both refused.
    before = after;
    const extra = await batch(
      [{ size: 100 }, { size: 100 }],
      [1, 2, 3].map((seed) => patternBytes(100, seed)),
    );
    assert.equal(extra.status, 400);
    await extra.arrayBuffer();
    after = await uploads();
    assert.equal(grew(before, after, 'filehost_uploads_total', { outcome: 'refused' }), 2);
    assert.equal(grew(before, after, 'filehost_uploads_total', { outcome: 'ready' }), 0);

    // The connection cut half-way through the second file: both files failed.
    before = after;
    await cutBatch(t.apiUrl, t.secretKey, [patternBytes(4000, 1)], 100_000);
    const failed = async () =>
      grew(before, await uploads(), 'filehost_uploads_total', { outcome: 'failed' });
    for (let tries = 0; tries < 100 && (await failed()) < 2; tries++) await sleep(100);
    after = await uploads();
    assert.equal(grew(before, after, 'filehost_uploads_total', { outcome: 'failed' }), 2);
    assert.equal(grew(before, after, 'filehost_uploads_total', { outcome: 'refused' }), 0);
  });
});

describe('answers of the HTTP parser', () => {
  let t: TestService;
  before(async () => {
    t = await startTestService({ FILEHOST_METRICS_PORT: '0' });
  });
  after(() => t.close());

  it("count 414, 431 and 400 answers to bytes Node's parser refused, on both servers", async () => {
    const before = (await scrape(t.service.metricsUrl as string)).samples;
    for (const base of [t.apiUrl, t.cdnUrl]) {
      for (const [payload, status] of [
        [`GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 414],
        [`HEAD /x HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431],
        ['GET /x HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n', 400],
      ] as const) {
        assert.match(
          (await answerToBytes(base, payload)).text,
          new RegExp(`^HTTP/1\\.1 ${status} `),
        );
      }
    }
    const after = (await scrape(t.service.metricsUrl as string)).samples;
    for (const server of ['api', 'cdn']) {
      const counted = (status: string, method: string) =>
        grew(before, after, 'filehost_http_requests_total', {
          server,
          route: 'unmatched',
          method,
          status,
        });
      assert.equal(counted('414', 'GET'), 1, server);
      assert.equal(counted('431', 'HEAD'), 1, server);
      assert.equal(counted('400', 'GET'), 1, server);
    }
  });
});

describe('FILEHOST_METRICS_HOST', () => {
  it('binds the metrics port to that address only', async () => {
    const t = await startTestService({
      FILEHOST_METRICS_PORT: '0',
      FILEHOST_METRICS_HOST: PUBLIC_STAND_IN,
    });
    try {
      const url = new URL(t.service.metricsUrl as string);
      assert.equal(url.hostname, PUBLIC_STAND_IN);
      assert.equal((await fetch(`${url.origin}/metrics`)).status, 200);
      await assert.rejects(fetch(`http://127.0.0.1:${url.port}/metrics`));
    } finally {
      await t.close();
    }
  });
});

describe('one registry per instance', () => {
  it('two services in one process count their own requests', async () => {
    const first = await startTestService({ FILEHOST_METRICS_PORT: '0' });
    const second = await startTestService({ FILEHOST_METRICS_PORT: '0' });
    try {
      await uploadOne(first, patternBytes(100, 6), 'one.bin');
      const mine = (await scrape(first.service.metricsUrl as string)).samples;
      const theirs = (await scrape(second.service.metricsUrl as string)).samples;
      assert.equal(sampleValue(mine, 'filehost_uploads_total', { outcome: 'ready' }), 1);
      assert.equal(sampleValue(theirs, 'filehost_uploads_total', { outcome: 'ready' }), 0);
      assert.equal(sampleValue(theirs, 'filehost_http_requests_total', { route: '/v1/upload' }), 0);
    } finally {
      await first.close();
      await second.close();
    }
  });
});

describe('webhook metrics', () => {
  let t: TestService;
  let receiver: WebhookReceiver;

  before(async () => {
    receiver = await startReceiver();
    t = await startTestService({
      FILEHOST_METRICS_PORT: '0',
      FILEHOST_WEBHOOK_URL: receiver.url,
      FILEHOST_WEBHOOK_ALLOW_PRIVATE: 'true',
    });
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  it('count attempts by outcome and show the outbox backlog the database holds', async () => {
    receiver.answer = () => 204;
    await uploadOne(t, patternBytes(100, 7), 'delivered.bin');
    await receiver.waitFor(1);
    receiver.answer = () => 500;
    // Before the refused attempt: its retry is due 5 s after the attempt, so not before this.
    const attemptedAfter = Date.now();
    await uploadOne(t, patternBytes(100, 8), 'refused.bin');
    await receiver.waitFor(2);
    // The attempt is recorded just after the receiver answered.
    let samples: Sample[] = [];
    let scrapedBy = 0;
    for (let tries = 0; tries < 100; tries++) {
      samples = (await scrape(t.service.metricsUrl as string)).samples;
      scrapedBy = Date.now();
      if (sampleValue(samples, 'filehost_webhook_attempts_total', { outcome: 'retrying' }) === 1)
        break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(
      sampleValue(samples, 'filehost_webhook_attempts_total', { outcome: 'delivered' }),
      1,
    );
    assert.equal(
      sampleValue(samples, 'filehost_webhook_attempts_total', { outcome: 'retrying' }),
      1,
    );
    assert.equal(sampleValue(samples, 'filehost_webhook_outbox_pending'), 1);
    // Its retry is due 5 s after the attempt: until then nothing has waited past its time (0),
    // and a machine slow enough to scrape later sees at most the time since it came due.
    const dueFor = Math.max(0, scrapedBy - attemptedAfter - (RETRY_DELAYS_MS[0] ?? 0)) / 1000;
    const oldestDue = sampleValue(samples, 'filehost_webhook_outbox_oldest_due_seconds');
    if (dueFor === 0) assert.equal(oldestDue, 0);
    else assert.ok(oldestDue <= dueFor, `${oldestDue} s due, at most ${dueFor} s`);
  });
});

const clamd = await startClamd();

describe('scan and import metrics', { skip: 'skip' in clamd ? clamd.skip : false }, () => {
  let t: TestService;
  let remote: { url: string; server: Server };

  before(async () => {
    remote = await serveRemote(PUBLIC_STAND_IN, (request, response) => {
      if (request.url === '/eicar.com') response.end(EICAR);
      else if (request.url === '/clean.bin') response.end(Buffer.alloc(2000, 7));
      else response.writeHead(404).end();
    });
    t = await startTestService(
      { FILEHOST_METRICS_PORT: '0', FILEHOST_CLAMD: (clamd as TestClamd).socket },
      { importTargetForTests: { treatAsPublic: [PUBLIC_STAND_IN] } },
    );
  });
  after(async () => {
    await t.close();
    remote.server.close();
    await (clamd as TestClamd).stop();
  });

  it('count scans by verdict, refusals once each, and imports by outcome', async () => {
    const before = (await scrape(t.service.metricsUrl as string)).samples;
    await uploadOne(t, patternBytes(1000, 9), 'clean.bin');
    const refused = await t.api('/v1/upload', {
      method: 'POST',
      body: new Uint8Array(EICAR),
      headers: { 'Content-Type': 'application/octet-stream' },
    });
    assert.equal(refused.status, 422);
    await refused.arrayBuffer();
    // Refused at its complete, in parts: counted by the scan's own path, not twice.
    const client = new FilehostClient({ endpoint: t.apiUrl, apiKey: t.secretKey });
    await assert.rejects(
      client.uploadFile(blobSource(new Blob([EICAR]))),
      (error: unknown) => error instanceof ApiError && error.code === 'infected',
    );
    await client.importFromUrl(`${remote.url}/clean.bin`, { pollIntervalMs: 100 });
    await assert.rejects(
      client.importFromUrl(`${remote.url}/eicar.com`, { pollIntervalMs: 100 }),
      (error: unknown) => error instanceof ApiError && error.code === 'infected',
    );
    await assert.rejects(
      client.importFromUrl(`${remote.url}/missing`, { pollIntervalMs: 100 }),
      ApiError,
    );
    const after = (await scrape(t.service.metricsUrl as string)).samples;
    const scans = (verdict: string) =>
      grew(before, after, 'filehost_scan_duration_seconds_count', { verdict });
    assert.equal(scans('clean'), 2);
    assert.equal(scans('infected'), 3);
    assert.equal(scans('unavailable'), 0);
    assert.ok(grew(before, after, 'filehost_scan_duration_seconds_sum') > 0);
    assert.equal(grew(before, after, 'filehost_uploads_total', { outcome: 'ready' }), 1);
    assert.equal(grew(before, after, 'filehost_uploads_total', { outcome: 'refused' }), 2);
    assert.equal(grew(before, after, 'filehost_imports_total', { outcome: 'ready' }), 1);
    assert.equal(grew(before, after, 'filehost_imports_total', { outcome: 'failed' }), 2);
    assert.equal(sampleValue(after, 'filehost_scans', { state: 'running' }), 0);
  });
});
