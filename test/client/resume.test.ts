// @deployments embedded scale (also run on PostgreSQL + S3: `npm run test:scale`)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FilehostClient } from '../../src/client/index.js';
import {
  defaultResumeFile,
  fileResumeStore,
  fileSource,
  uploadPath,
} from '../../src/client/node.js';
import { publicUrlOf } from '../helpers/public-url.js';
import {
  assertSameBytes,
  patternBytes,
  startTestService,
  type TestService,
} from '../helpers/service.js';

const MiB = 1024 * 1024;

/**
 * `uploadPath` in Node: a process killed mid-upload, then the same path again. Real service,
 * real files, a real SIGKILL.
 */
describe('resuming an upload in Node by its path', () => {
  let t: TestService;
  let dir: string;
  let cache: string;
  const previousCache = process.env.XDG_CACHE_HOME;
  before(async () => {
    t = await startTestService({ FILEHOST_PART_SIZE: String(5 * MiB) });
    dir = await mkdtemp(join(tmpdir(), 'filehost-resume-'));
    cache = join(dir, 'cache');
    process.env.XDG_CACHE_HOME = cache;
  });
  after(async () => {
    if (previousCache === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = previousCache;
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A client that counts its part PUTs. */
  function countingClient(): { client: FilehostClient; puts: () => number } {
    let puts = 0;
    const client = new FilehostClient({
      endpoint: t.apiUrl,
      apiKey: t.secretKey,
      fetch: (input, init) => {
        if (init?.method === 'PUT') puts++;
        return fetch(input, init);
      },
    });
    return { client, puts: () => puts };
  }

  async function killedAfter(path: string, parts: number): Promise<void> {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/helpers/upload-until-killed.ts'],
      {
        env: {
          ...process.env,
          FILEHOST_ENDPOINT: t.apiUrl,
          FILEHOST_KEY: t.secretKey,
          FILEHOST_PATH: path,
          FILEHOST_KILL_AFTER_PARTS: String(parts),
          XDG_CACHE_HOME: cache,
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const signal = await new Promise<NodeJS.Signals | null>((done) =>
      child.on('exit', (_code, killed) => done(killed)),
    );
    assert.equal(signal, 'SIGKILL', `the upload was to be killed: ${output}`);
  }

  it('sends only the parts the service does not hold after the process was killed', async () => {
    const path = join(dir, 'video.bin');
    const bytes = patternBytes(12 * MiB, 7); // three parts of 5, 5 and 2 MiB
    await writeFile(path, bytes);
    await killedAfter(path, 2);
    const remembered = JSON.parse(await readFile(defaultResumeFile(), 'utf8')) as object;
    assert.equal(Object.keys(remembered).length, 1, 'the cut upload is remembered');

    const { client, puts } = countingClient();
    const record = await uploadPath(client, path, { concurrency: 1 });
    assert.equal(puts(), 1, 'only the third part is sent');
    assert.equal(record.size, bytes.length);
    assertSameBytes(await (await fetch(publicUrlOf(record))).arrayBuffer(), bytes);
    const left = JSON.parse(await readFile(defaultResumeFile(), 'utf8')) as object;
    assert.deepEqual(left, {}, 'a finished upload is forgotten');
  });

  it('starts afresh when the service no longer knows the upload, or the file changed', async () => {
    const path = join(dir, 'notes.bin');
    const bytes = patternBytes(11 * MiB, 3);
    await writeFile(path, bytes);
    const source = await fileSource(path);
    const store = fileResumeStore();
    // Remembered, but gone from the service (expired, or cancelled elsewhere).
    await store.set(`${t.apiUrl} ${await source.fingerprint?.()}`, {
      id: 'AAAAAAAAAAAAAAAAAAAAAA',
      token: null,
    });
    const first = countingClient();
    const record = await uploadPath(first.client, path);
    assert.equal(first.puts(), 3, 'all three parts');
    assertSameBytes(await (await fetch(publicUrlOf(record))).arrayBuffer(), bytes);

    // Cut, then the file is written again (same size): its fingerprint differs, so the new
    // bytes are sent whole, never mixed with the parts of the old ones.
    await killedAfter(path, 1);
    const changed = patternBytes(11 * MiB, 4);
    await writeFile(path, changed);
    await utimes(path, new Date(), new Date(Date.now() + 5000));
    const second = countingClient();
    const again = await uploadPath(second.client, path);
    assert.equal(second.puts(), 3);
    assertSameBytes(await (await fetch(publicUrlOf(again))).arrayBuffer(), changed);
  });
});
