/**
 * `npm run bench:webhooks`: how soon a backend hears of a file, on the embedded deployment,
 * with a receiver on loopback that answers at once.
 *
 * 1. Latency: files uploaded one after another through the multi-step flow (sign, PUT,
 *    complete); for each, the time from `complete` answering to `file.ready` arriving at
 *    the receiver. p50 and p99.
 * 2. Throughput: a burst of one-request uploads, 20 at a time; events delivered per
 *    second, beside the uploads per second that made them (the contender: delivery keeps
 *    up when the two are alike), and how far the last delivery trails the last upload.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WebhookPayload } from '../../src/api/events.js';
import type { SignResponse } from '../../src/api/types.js';
import { spawnService } from '../helpers/service.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { percentile, reportRows } from './support.js';

const SEQUENTIAL = Number(process.env.BENCH_FILES ?? 200);
const BURST = Number(process.env.BENCH_BURST ?? 1000);
const CONCURRENCY = 20;

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'filehost-webhook-bench-'));
  const receiver = await startReceiver();
  const arrivals = new Map<string, number>();
  receiver.answer = (_index, request) => {
    const payload = JSON.parse(request.body) as WebhookPayload;
    arrivals.set(payload.data.id, performance.now());
    return 204;
  };
  const service = await spawnService({
    FILEHOST_DATA_DIR: dir,
    FILEHOST_WEBHOOK_URL: receiver.url,
    // The receiver listens on loopback: a private target.
    FILEHOST_WEBHOOK_ALLOW_PRIVATE: 'true',
    FILEHOST_LOG_LEVEL: 'error',
  });
  const auth = { Authorization: `Bearer ${service.secretKey}` };
  const waitFor = async (count: number) => {
    while (arrivals.size < count) await new Promise((resolve) => setTimeout(resolve, 2));
  };
  try {
    // 1. complete answered -> file.ready at the receiver.
    const latencies: number[] = [];
    for (let index = 0; index < SEQUENTIAL; index++) {
      const signed = (await (
        await fetch(`${service.apiUrl}/v1/uploads/sign`, {
          method: 'POST',
          headers: { ...auth, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: `s${index}.bin`, size: 1024 }),
        })
      ).json()) as SignResponse;
      const part = signed.parts[0];
      if (!part) throw new Error('no part signed');
      await fetch(part.url, { method: 'PUT', headers: part.headers, body: new Uint8Array(1024) });
      const done = await fetch(`${service.apiUrl}/v1/uploads/${signed.id}/complete`, {
        method: 'POST',
        headers: auth,
      });
      const answered = performance.now();
      if (done.status !== 200) throw new Error(`complete answered ${done.status}`);
      await waitFor(index + 1);
      latencies.push((arrivals.get(signed.id) as number) - answered);
    }

    // 2. A burst of uploads, and the deliveries they make.
    const before = arrivals.size;
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < BURST) {
          const index = next++;
          const answer = await fetch(`${service.apiUrl}/v1/upload`, {
            method: 'POST',
            headers: { ...auth, 'X-Filename': `b${index}.txt` },
            body: `burst ${index}`,
          });
          if (answer.status !== 201) throw new Error(`upload answered ${answer.status}`);
        }
      }),
    );
    const uploaded = performance.now();
    await waitFor(before + BURST);
    const delivered = Math.max(...[...arrivals.values()].slice(before));
    const uploadsPerSecond = BURST / ((uploaded - started) / 1000);
    const eventsPerSecond = BURST / ((delivered - started) / 1000);

    console.log(`\nfilehost webhook bench — ${new Date().toISOString()} — ${process.version}`);
    console.log(
      `complete answered -> file.ready received (${SEQUENTIAL} files, one at a time): p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms`,
    );
    console.log(
      `burst of ${BURST} uploads, ${CONCURRENCY} at a time: ${uploadsPerSecond.toFixed(0)} uploads/s, ${eventsPerSecond.toFixed(0)} events delivered/s; the last event ${(delivered - uploaded).toFixed(0)} ms after the last upload answered; ${receiver.received.length - SEQUENTIAL - BURST} sent twice`,
    );
    await reportRows([
      {
        comparison: 'webhooks: delivery keeps up with uploads',
        measure: `events delivered/s in a burst of ${BURST}`,
        filehost: eventsPerSecond,
        peer: { name: 'uploads/s that made them', value: uploadsPerSecond },
        goal: { op: '>=', target: 0.9 },
        runs: 1,
      },
    ]);
  } finally {
    service.process.kill('SIGTERM');
    await service.exited;
    await receiver.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
