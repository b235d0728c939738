// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Page, Route, Worker } from 'playwright-core';
import { patternBytes } from '../helpers/bytes.js';
import { partNumberOf, servedHash, sha256 } from '../helpers/part-requests.js';
import { staticServer } from '../helpers/static-server.js';
import { startUploaderSite, type UploaderSite } from '../helpers/uploader-site.js';

/**
 * Part checksums from the browser (#19), in the built script-tag bundle against the real
 * service: SHA-256 (`Content-Digest`) on the embedded store and, under
 * FILEHOST_TEST_DEPLOYMENT=scale, MD5 (`Content-MD5`, hashed by the WebAssembly chunk) on
 * the Ceph gateway, which checks it itself. A byte of one part PUT is flipped on the way;
 * the storage must refuse it and the element send it again.
 */
const MiB = 1024 * 1024;
const scale = process.env.FILEHOST_TEST_DEPLOYMENT === 'scale';
const digestHeader = scale ? 'content-md5' : 'content-digest';

describe(`<file-uploader> checks the bytes of each part (${scale ? 'S3: MD5' : 'embedded: SHA-256'})`, () => {
  let site: UploaderSite;
  let attributes = '';
  /** The page's Content Security Policy, if any. */
  let policy = '';
  /** Where the page loads the bundle from: its own origin (''), or the CDN's. */
  let scriptOrigin = '';
  /** The built bundle on another origin, as a CDN serves it. */
  let cdn: { origin: string; server: Server } | undefined;

  before(async () => {
    site = await startUploaderSite('checksums', () => `no-resume ${attributes}`, {
      head: () => (policy ? `<meta http-equiv="Content-Security-Policy" content="${policy}">` : ''),
      script: () => `${scriptOrigin}/filehost.js`,
    });
    cdn = await staticServer(() => '');
  });
  after(async () => {
    cdn?.server.close();
    await site?.close();
  });

  /**
   * The page, with every part PUT recorded (its number and digest header) and the first PUT
   * of part `flip` damaged on the way: one byte in its middle flipped.
   */
  async function open(flip: number) {
    const page = await (await site.browser.newContext()).newPage();
    const puts: { part: number; digest: string | undefined }[] = [];
    let flipped = false;
    await page.route('**/*', async (route: Route) => {
      const request = route.request();
      if (request.method() !== 'PUT') return route.fallback();
      const part = partNumberOf(request);
      puts.push({ part, digest: request.headers()[digestHeader] });
      const body = request.postDataBuffer();
      if (flipped || part !== flip || !body) return route.fallback();
      flipped = true;
      const damaged = Buffer.from(body);
      const middle = Math.floor(damaged.length / 2);
      damaged.writeUInt8(damaged.readUInt8(middle) ^ 0xff, middle);
      return route.fallback({ postData: damaged });
    });
    const threads = await watchThreads(page);
    await page.goto(site.origin);
    await page.waitForFunction(() => customElements.get('file-uploader'));
    return { page, puts, threads };
  }

  /**
   * A 12 MiB file (three parts) whose part 2 is damaged on its first way (`open(2)`): the
   * store refuses it, that part alone goes again, every PUT carries its digest, and the
   * served file is exact.
   */
  async function catchesDamagedPart(
    page: Page,
    puts: { part: number; digest: string | undefined }[],
    name: string,
    seed: number,
  ): Promise<void> {
    const bytes = patternBytes(12 * MiB, seed);
    const url = await uploaded(page, name, bytes);
    assert.equal(await servedHash(url), sha256(bytes));
    assert.deepEqual(puts.map((put) => put.part).sort(), [1, 2, 2, 3]);
    assert.ok(
      puts.every((put) => put.digest),
      'every part PUT carries its digest',
    );
  }

  async function uploaded(page: Page, name: string, bytes: Uint8Array): Promise<string> {
    await page.setInputFiles('file-uploader input.pick-files', {
      name,
      mimeType: 'application/octet-stream',
      buffer: Buffer.from(bytes),
    });
    const handle = await page.waitForFunction(
      () => {
        const [file] = (
          document.querySelector('file-uploader') as unknown as {
            files: { status: string; record: { url: string } | null; failure: unknown }[];
          }
        ).files;
        if (file?.status === 'failed') return JSON.stringify(file.failure);
        return file?.status === 'done' ? `url:${file.record?.url}` : false;
      },
      undefined,
      { timeout: 60_000, polling: 100 },
    );
    const outcome = (await handle.jsonValue()) as string;
    assert.ok(outcome.startsWith('url:'), `failed: ${outcome}`);
    return outcome.slice(4);
  }

  it('refuses a small file damaged on the way and sends it again (the default)', async () => {
    attributes = '';
    const { page, puts } = await open(1);
    const bytes = patternBytes(300_000, 31);
    const url = await uploaded(page, 'small.bin', bytes);
    assert.equal(await servedHash(url), sha256(bytes));
    assert.deepEqual(
      puts.map((put) => put.part),
      [1, 1],
    );
    assert.ok(
      puts.every((put) => put.digest),
      'every PUT carries its digest',
    );
    await page.context().close();
  });

  it('refuses a damaged part of a 12 MiB file and sends that part again (the default: every part)', async () => {
    attributes = '';
    const { page, puts } = await open(2);
    await catchesDamagedPart(page, puts, 'big.bin', 32);
    await page.context().close();
  });

  /**
   * Counts the WebAssembly modules compiled on the page's own thread (hash-wasm compiles its
   * MD5 once per thread it runs on), calling through to the browser's own compile: a count
   * of 0 after an upload checked with MD5 means the page did not hash. And the workers the
   * page started, and those its policy refused.
   */
  async function watchThreads(page: Page) {
    await page.addInitScript(() => {
      const compile = WebAssembly.compile;
      const counted = { compiles: 0, refusedWorkers: 0 };
      Object.assign(window, { threadsSeen: counted });
      WebAssembly.compile = (bytes) => {
        counted.compiles++;
        return compile.call(WebAssembly, bytes);
      };
      document.addEventListener('securitypolicyviolation', (event) => {
        if (event.effectiveDirective === 'worker-src') counted.refusedWorkers++;
      });
    });
    const workers: Worker[] = [];
    page.on('worker', (worker) => workers.push(worker));
    return {
      /** WebAssembly compiled on the page's thread, and workers its policy refused. */
      seen: () =>
        page.evaluate(
          () =>
            (window as unknown as { threadsSeen: { compiles: number; refusedWorkers: number } })
              .threadsSeen,
        ),
      workers,
    };
  }

  const MD5_ONLY = scale ? false : 'MD5 is what S3 checks: runs on the scale deployment';

  for (const from of ['the page', 'a CDN'] as const) {
    it(`hashes MD5 in a worker, not on the page, and still catches a damaged part (bundle from ${from})`, {
      skip: MD5_ONLY,
    }, async () => {
      attributes = '';
      // The worker's script must be of the page's origin, the chunk it imports need not be.
      scriptOrigin = from === 'a CDN' ? (cdn?.origin ?? '') : '';
      const { page, puts, threads } = await open(2);
      scriptOrigin = '';
      await catchesDamagedPart(page, puts, 'worker.bin', 34);
      const [worker, ...others] = threads.workers;
      assert.ok(worker && others.length === 0, 'one worker hashed every part');
      assert.match(worker.url(), /^blob:/);
      assert.deepEqual(await threads.seen(), { compiles: 0, refusedWorkers: 0 });
      // Idle, it ends: 10 s after its last answer (md5.ts, WORKER_IDLE_MS).
      if (from === 'the page') {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await new Promise((resolve, reject) => {
          worker.once('close', resolve);
          timer = setTimeout(() => reject(new Error('the idle worker did not end')), 20_000);
        }).finally(() => clearTimeout(timer));
      }
      await page.context().close();
    });
  }

  it('hashes MD5 on the page where its policy refuses workers, and still catches a damaged part', {
    skip: MD5_ONLY,
  }, async () => {
    attributes = '';
    policy = "worker-src 'none'";
    const { page, puts, threads } = await open(2);
    policy = '';
    await catchesDamagedPart(page, puts, 'no-worker.bin', 35);
    const seen = await threads.seen();
    assert.equal(seen.compiles, 1, 'the page hashed, with one MD5 compiled');
    assert.ok(seen.refusedWorkers > 0, 'the policy refused the worker');
    await page.context().close();
  });

  it('with checksum="small", sends the parts of a big file without digests', async () => {
    attributes = 'checksum="small"';
    const { page, puts } = await open(0);
    const bytes = patternBytes(12 * MiB, 33);
    const url = await uploaded(page, 'plain.bin', bytes);
    assert.equal(await servedHash(url), sha256(bytes));
    assert.deepEqual(
      puts.map((put) => put.digest),
      [undefined, undefined, undefined],
    );
    await page.context().close();
  });
});
