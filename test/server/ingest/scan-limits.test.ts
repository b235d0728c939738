// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { EventListResponse } from '../../../src/api/events.js';
import type {
  FileRecord,
  ImportResponse,
  ImportState,
  SignResponse,
  Usage,
} from '../../../src/api/types.js';
import { ApiError, FilehostClient } from '../../../src/client/index.js';
import {
  CLAMD_MAX_SCAN_BYTES,
  EICAR,
  EICAR_SIGNATURE,
  startClamd,
  type TestClamd,
  zerosGzip,
} from '../../helpers/clamd.js';
import { PUBLIC_STAND_IN, serveRemote } from '../../helpers/remote-server.js';
import {
  ALLOWED_ORIGIN,
  expectError,
  json,
  patternBytes,
  startTestService,
  type TestService,
} from '../../helpers/service.js';

/**
 * Scanning is bounded and fair (decisions.md, "Abuse by the public key, round two"), with a
 * real clamd whose limits are those docs/security.md gives: what clamd cannot finish is
 * `422 unscannable` and kept nowhere; one address's many archive bombs do not hold back
 * another client; an import clamd refuses ends `failed` with the reason, which its follower
 * reads.
 */
const clamd = await startClamd();

/** A gzip of 400 MB of zeros (about 390 KB): past the daemon's `MaxScanSize`. */
const BOMB_BYTES = 400_000_000;
/** Bombs sent at once by one address. */
const FLOOD = 12;
/** Scans the service runs at once (`FILEHOST_SCAN_CONCURRENCY`, its default). */
const SCAN_CONCURRENCY = 4;

/**
 * The service trusts one proxy hop and the test is that hop: `X-Forwarded-For` is the
 * client's address, as nginx's would be.
 */
function anonymous(t: TestService, address: string) {
  return {
    key: t.publishableKey,
    origin: ALLOWED_ORIGIN,
    headers: { 'X-Forwarded-For': address },
  };
}

function upload(
  t: TestService,
  bytes: Uint8Array,
  name: string,
  as: { key?: string; origin?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  return t.api('/v1/upload', {
    ...as,
    method: 'POST',
    headers: {
      ...as.headers,
      'Content-Type': 'application/octet-stream',
      'X-Filename': name,
    },
    body: new Uint8Array(bytes),
  });
}

/** Milliseconds `work` took, and when it began and ended (`performance.now()`). */
async function timed<T>(
  work: () => Promise<T>,
): Promise<{ ms: number; started: number; ended: number; value: T }> {
  const started = performance.now();
  const value = await work();
  const ended = performance.now();
  return { ms: ended - started, started, ended, value };
}

describe('scanning bounded and fair', { skip: 'skip' in clamd ? clamd.skip : false }, () => {
  const daemon = clamd as TestClamd;
  let t: TestService;
  let bomb: Buffer;
  let remote: { url: string; server: Server };

  before(async () => {
    bomb = await zerosGzip(BOMB_BYTES);
    assert.ok(BOMB_BYTES > CLAMD_MAX_SCAN_BYTES, 'the bomb inflates past MaxScanSize');
    remote = await serveRemote(PUBLIC_STAND_IN, (request, response) => {
      if (request.url === '/eicar.com') response.end(EICAR);
      else if (request.url === '/bomb.gz') response.end(bomb);
      else response.writeHead(404).end();
    });
    t = await startTestService(
      {
        FILEHOST_CLAMD: daemon.socket,
        FILEHOST_SCAN_CONCURRENCY: String(SCAN_CONCURRENCY),
        FILEHOST_TRUST_PROXY: '1',
        FILEHOST_RATE_LIMIT: '100000',
      },
      { importTargetForTests: { treatAsPublic: [PUBLIC_STAND_IN] } },
    );
  });
  after(async () => {
    await t?.close();
    remote?.server.close();
    await daemon.stop();
  });

  const usage = async () => json<Usage>(await t.api('/v1/usage'));

  it('answers an archive bomb 422 unscannable and keeps nothing: no bytes, no room, no event', async () => {
    const stored = await t.stored();
    const used = await usage();
    const { events: before } = await json<EventListResponse>(await t.api('/v1/events?limit=100'));
    const refused = await expectError(
      await upload(t, bomb, 'zeros.gz', anonymous(t, '198.51.100.1')),
      422,
      'unscannable',
    );
    assert.match(refused.message, /limits/);
    assert.equal('signature' in refused, false, 'no signature: nothing was found');
    // The same through the multi-step upload, completed with the secret key.
    const signed = await json<SignResponse>(
      await t.sign({ name: 'zeros.gz', size: bomb.length, type: 'application/gzip' }),
      201,
    );
    const [part] = signed.parts;
    assert.ok(part && signed.parts.length === 1);
    assert.ok((await t.putPart(part, new Uint8Array(bomb))).ok);
    await expectError(await t.complete(signed.id), 422, 'unscannable');
    await expectError(await t.api(`/v1/files/${signed.id}`), 404, 'not_found');
    assert.deepEqual(await t.stored(), stored);
    const now = await usage();
    assert.equal(now.storedBytes, used.storedBytes);
    assert.equal(now.pendingBytes, used.pendingBytes);
    const { events } = await json<EventListResponse>(await t.api('/v1/events?limit=100'));
    assert.deepEqual(
      events.filter((event) => !before.some((seen) => seen.id === event.id)),
      [],
      'an unscannable file is not infected: no file.infected',
    );
  });

  it("one address's many bombs delay another client's small upload by one bomb's scan at most", async (context) => {
    const small = patternBytes(16, 3);
    // For the diagnostic: one bomb alone, and the small upload alone.
    const bombAlone = await timed(async () =>
      expectError(await upload(t, bomb, 'b.gz', anonymous(t, '198.51.100.2')), 422, 'unscannable'),
    );
    const smallAlone = await timed(async () =>
      json(await upload(t, small, 'alone.txt', anonymous(t, '203.0.113.2')), 201),
    );
    const stored = await t.stored();
    const flood = Array.from({ length: FLOOD }, async (_, index) =>
      timed(async () => upload(t, bomb, `bomb${index}.gz`, anonymous(t, '198.51.100.3'))),
    );
    // The bombs are in: their bodies sent (390 KB on loopback), scans under way or waiting.
    await new Promise((resolve) => setTimeout(resolve, Math.max(200, bombAlone.ms / 2)));
    const smallDuringFlood = await timed(async () =>
      json<{ id: string }>(await upload(t, small, 'during.txt', anonymous(t, '203.0.113.3')), 201),
    );
    const bombs = await Promise.all(flood);
    for (const { value } of bombs) await expectError(value, 422, 'unscannable');
    // Told by order, not by time (a loaded machine stretches every scan alike): in turns, the
    // small file takes the first place a bomb frees, so the bombs answered while it waited are
    // at most those already being scanned when it came, and one or two that began beside it;
    // without turns it waits behind every bomb still queued.
    const waiting = bombs.filter(({ ended }) => ended > smallDuringFlood.started).length;
    const answeredMeanwhile = bombs.filter(
      ({ ended }) => ended > smallDuringFlood.started && ended <= smallDuringFlood.ended,
    ).length;
    const bound = SCAN_CONCURRENCY + 2;
    const lastBomb = Math.max(...bombs.map(({ ms }) => ms));
    const said = `small upload during ${FLOOD} bombs: ${Math.round(smallDuringFlood.ms)} ms, ${answeredMeanwhile} of the ${waiting} bombs not yet answered when it began were answered before it; one bomb alone ${Math.round(bombAlone.ms)} ms, the small upload alone ${Math.round(smallAlone.ms)} ms, the last bomb answered after ${Math.round(lastBomb)} ms`;
    context.diagnostic(said);
    assert.ok(answeredMeanwhile <= bound, said);
    assert.ok(waiting > bound, `the flood must outlast the bound to prove anything: ${said}`);
    // Only the small file was kept.
    const kept = (await t.stored()).filter((key) => !stored.includes(key));
    assert.equal(kept.length, 1, JSON.stringify(kept));
    assert.ok(kept[0]?.includes(smallDuringFlood.value.id));
  });

  it('an infected import ends failed with importError infected, which its follower reads, and sends file.infected', async () => {
    const { file, uploadToken } = await json<ImportResponse>(
      await t.api('/v1/uploads/import', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: `${remote.url}/eicar.com` }),
      }),
      202,
    );
    const follow = async () =>
      json<ImportState>(
        await t.api(`/v1/uploads/${file.id}`, {
          key: t.publishableKey,
          origin: ALLOWED_ORIGIN,
          headers: { 'X-Upload-Token': uploadToken },
        }),
      );
    let state = await follow();
    for (const deadline = Date.now() + 20_000; state.file.status === 'pending'; ) {
      assert.ok(Date.now() < deadline, 'the import is still pending');
      await new Promise((resolve) => setTimeout(resolve, 100));
      state = await follow();
    }
    assert.equal(state.file.status, 'failed');
    assert.equal(state.file.importError?.code, 'infected');
    assert.match(state.file.importError?.message ?? '', new RegExp(EICAR_SIGNATURE));
    const { events } = await json<EventListResponse>(await t.api('/v1/events?limit=100'));
    const infected = events.find(
      (event) => event.type === 'file.infected' && event.data.id === file.id,
    );
    assert.ok(infected, 'file.infected sent');
    assert.equal('signature' in infected.data && infected.data.signature, EICAR_SIGNATURE);
    assert.equal(
      events.some((event) => event.type === 'file.import_failed' && event.data.id === file.id),
      false,
    );
    assert.equal((await fetch(`${t.cdnUrl}/${file.id}`)).status, 404);
  });

  it('an import clamd cannot finish ends failed with importError unscannable; importFromUrl rejects with the code', async () => {
    const client = new FilehostClient({ endpoint: t.apiUrl, apiKey: t.secretKey });
    const stored = await t.stored();
    await assert.rejects(
      client.importFromUrl(`${remote.url}/bomb.gz`, { pollIntervalMs: 100 }),
      (error: unknown) =>
        error instanceof ApiError && error.code === 'unscannable' && error.status === 422,
    );
    await assert.rejects(
      client.importFromUrl(`${remote.url}/eicar.com`, { pollIntervalMs: 100 }),
      (error: unknown) => error instanceof ApiError && error.code === 'infected',
    );
    assert.deepEqual(await t.stored(), stored);
  });
});

describe('a scan past FILEHOST_SCAN_TIMEOUT', {
  skip: 'skip' in clamd ? clamd.skip : false,
}, () => {
  let daemon: TestClamd;
  let t: TestService;
  /** Inflates to less than `MaxScanSize`: clamd reads all of it, which takes seconds. */
  let slow: Buffer;

  before(async () => {
    const started = await startClamd();
    if ('skip' in started) throw new Error(started.skip);
    daemon = started;
    slow = await zerosGzip(Math.floor(CLAMD_MAX_SCAN_BYTES * 0.9));
    t = await startTestService({ FILEHOST_CLAMD: daemon.socket, FILEHOST_SCAN_TIMEOUT: '1' });
  });
  after(async () => {
    await t?.close();
    await daemon?.stop();
  });

  it('answers 422 unscannable and keeps nothing, while clamd is up and answers small files', async () => {
    const stored = await t.stored();
    const started = performance.now();
    await expectError(await upload(t, slow, 'slow.gz'), 422, 'unscannable');
    const took = performance.now() - started;
    assert.deepEqual(await t.stored(), stored);
    // Not clamd being down: the next file is scanned and kept.
    const clean = await json<{ id: string }>(await upload(t, patternBytes(100, 1), 'ok.bin'), 201);
    assert.equal((await json<FileRecord>(await t.api(`/v1/files/${clean.id}`))).status, 'ready');
    // Cut at the timeout, not left to clamd's MaxScanTime (30 s).
    assert.ok(took < 20_000, `took ${Math.round(took)} ms`);
  });
});
