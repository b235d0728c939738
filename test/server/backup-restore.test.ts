import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import {
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  truncate,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { FileRecord } from '../../src/api/types.js';
import { FilehostClient } from '../../src/client/client.js';
import type { BackupManifest } from '../../src/server/admin/backup-manifest.js';
import { type ChildService, patternBytes, spawnService } from '../helpers/service.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const run = promisify(execFile);
const MiB = 1024 * 1024;

/** `npm run admin -- …` as a process of its own; rejects (with its stderr) when it fails. */
function admin(env: Record<string, string>, ...args: string[]) {
  return run(process.execPath, ['--import', 'tsx', 'src/server/cli.ts', ...args], {
    env: { ...process.env, ...env },
    maxBuffer: 16 * MiB,
  });
}

/** An admin command that must fail: its exit code and what it said. */
async function adminRefused(env: Record<string, string>, ...args: string[]) {
  try {
    const { stdout } = await admin(env, ...args);
    assert.fail(`admin ${args.join(' ')} succeeded:\n${stdout}`);
  } catch (error) {
    const failed = error as { code?: number; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { code: failed.code, stderr: failed.stderr ?? '' };
  }
}

/** What the load did to one file, in this process's clock. */
interface Uploaded {
  bytes: Uint8Array<ArrayBuffer>;
  readyAt: number;
  deleteStartedAt?: number;
  deletedAt?: number;
}

/**
 * `admin backup` and `admin restore` on real processes: a running embedded service is
 * backed up while clients upload and delete throughout, the backup is restored into a new
 * data dir, and a service started on it serves every file and record the backup names,
 * byte for byte, with the same keys, projects and webhooks (secrets as stored).
 */
describe('admin backup and restore (embedded)', () => {
  let work: string;
  let source: ChildService;
  let restored: ChildService | undefined;
  let receiver: WebhookReceiver;
  const sourceDir = () => join(work, 'source');
  const serviceEnv = (dataDir: string) => ({
    FILEHOST_DATA_DIR: dataDir,
    FILEHOST_PART_SIZE: String(5 * MiB),
    // The webhook receiver listens on loopback: a private target, allowed here.
    FILEHOST_WEBHOOK_ALLOW_PRIVATE: 'true',
  });

  before(async () => {
    work = await mkdtemp(join(tmpdir(), 'filehost-backup-'));
    receiver = await startReceiver();
    source = await spawnService(serviceEnv(sourceDir()));
  });
  after(async () => {
    source?.process.kill('SIGKILL');
    restored?.process.kill('SIGKILL');
    await receiver?.close();
    await rm(work, { recursive: true, force: true });
  });

  it('backs up a busy service; the restored service serves every file and record of the copy', async () => {
    const client = new FilehostClient({ endpoint: source.apiUrl, apiKey: source.secretKey });
    const files = new Map<string, Uploaded>();
    let seed = 1;
    const uploadOne = async (
      size: number,
      options: Parameters<FilehostClient['upload']>[1] = {},
    ) => {
      const bytes = patternBytes(size, seed++);
      const answer = await client.upload(new Blob([bytes]), { name: `f${seed}.bin`, ...options });
      files.set(answer.id, { bytes, readyAt: Date.now() });
      return answer.id;
    };

    // What the backup must carry besides files: a second project, a key made by the admin
    // command, a revoked one, a webhook (its secret shown once, here), an upload token.
    const shop = (await admin(serviceEnv(sourceDir()), 'projects', 'create', '--name', 'Shop'))
      .stdout;
    const shopKey = /Secret key\s+(sk_live_\S+)/.exec(shop)?.[1] as string;
    const projectId = /Created (prj_\S+)/.exec(shop)?.[1] as string;
    const extra = (
      await admin(serviceEnv(sourceDir()), 'keys', 'create', projectId, '--kind', 'secret')
    ).stdout;
    const extraKey = /(sk_live_\S+)/.exec(extra)?.[1] as string;
    const revoked = (
      await admin(serviceEnv(sourceDir()), 'keys', 'create', projectId, '--kind', 'publishable')
    ).stdout;
    const revokedKey = /(pk_live_\S+)/.exec(revoked)?.[1] as string;
    const revokedId = /(key_\S+)/.exec(revoked)?.[1] as string;
    await admin(serviceEnv(sourceDir()), 'keys', 'revoke', revokedId);
    const shopClient = new FilehostClient({ endpoint: source.apiUrl, apiKey: shopKey });
    const shopFile = patternBytes(70_000, 999);
    const shopUpload = await shopClient.upload(new Blob([shopFile]), { name: 'shop.bin' });
    const webhook = await client.createWebhook({ url: receiver.url, events: ['file.ready'] });
    await client.createUploadToken({ maxFiles: 3 });

    // Files before: many small ones, one of several parts, a private one (and a signed
    // link to it, which must still open once restored: the signing secret is kept).
    for (let index = 0; index < 120; index++) await uploadOne(1 + ((index * 7919) % 150_000));
    const large = patternBytes(6 * MiB + 123, seed++);
    const largeRecord = await client.uploadFile(
      {
        size: large.length,
        name: 'large.bin',
        slice: (start, end) => new Blob([large.slice(start, end)]),
      },
      { checksum: false },
    );
    files.set(largeRecord.id, { bytes: large, readyAt: Date.now() });
    const privateId = await uploadOne(33_333, { visibility: 'private' });
    const signedLink = new URL((await client.signedUrl(privateId, { expiresIn: 3600 })).url);
    for (const id of [...files.keys()].slice(0, 10)) {
      const entry = files.get(id) as Uploaded;
      entry.deleteStartedAt = Date.now();
      await client.deleteFile(id);
      entry.deletedAt = Date.now();
    }
    const before = new Map<string, FileRecord>();
    for await (const record of client.iterateFiles({ pageSize: 100 }))
      before.set(record.id, record);

    // Uploads and deletes from three clients, throughout the backup.
    let loading = true;
    const failures: unknown[] = [];
    const worker = async (offset: number) => {
      for (let round = 0; loading; round++) {
        try {
          await uploadOne(1 + ((round * 104_729 + offset) % 60_000));
          if (round % 2 === 1) {
            const candidates = [...files].filter(
              ([id, f]) => !f.deleteStartedAt && id !== privateId,
            );
            const [id, entry] = candidates[(round * 31 + offset) % candidates.length] as [
              string,
              Uploaded,
            ];
            entry.deleteStartedAt = Date.now();
            await client.deleteFile(id);
            entry.deletedAt = Date.now();
          }
        } catch (error) {
          failures.push(error);
        }
      }
    };
    const workers = [worker(0), worker(7), worker(13)];
    await new Promise((resolve) => setTimeout(resolve, 500));

    const backupDir = join(work, 'backup');
    const backupStartedAt = Date.now();
    const backup = await admin(serviceEnv(sourceDir()), 'backup', backupDir);
    const backupEndedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 300));
    loading = false;
    await Promise.all(workers);
    assert.deepEqual(
      failures,
      [],
      'the service answered every upload and delete during the backup',
    );

    // Progress was shown (plain lines: stderr is a pipe), and the result said.
    assert.match(backup.stderr, /Files ready before the database copy: \d+ of \d+/);
    assert.match(backup.stderr, /Database: 100% \(\d+ of \d+ pages\)/);
    assert.match(
      backup.stdout,
      /Backed up [\s\S]* files \(.*\), 2 projects, 6 keys, 1 webhook, 1 upload token/,
    );
    const manifest = JSON.parse(
      await readFile(join(backupDir, 'manifest.json'), 'utf8'),
    ) as BackupManifest;
    assert.deepEqual(manifest.damagedInSource, []);
    const inBackup = new Set(manifest.files.map((file) => file.id));
    assert.ok(inBackup.has(shopUpload.id), "the other project's file is in the backup");
    for (const [id, file] of files) {
      const keptThroughout =
        file.readyAt < backupStartedAt &&
        (file.deleteStartedAt ?? Number.POSITIVE_INFINITY) > backupEndedAt;
      if (keptThroughout) assert.ok(inBackup.has(id), `${id}, ready throughout, is in the backup`);
      if ((file.deletedAt ?? Number.POSITIVE_INFINITY) < backupStartedAt) {
        assert.ok(!inBackup.has(id), `${id}, deleted before the backup, is not in it`);
      }
    }
    for (const id of manifest.deletedDuringBackup) {
      assert.ok((files.get(id)?.deleteStartedAt ?? Number.POSITIVE_INFINITY) < backupEndedAt, id);
    }
    const changedDuring = [...files.values()].filter(
      (f) => f.readyAt > backupStartedAt || (f.deleteStartedAt ?? 0) > backupStartedAt,
    );
    assert.ok(changedDuring.length > 0, 'files were uploaded or deleted while the backup ran');
    // The source's records of what the backup holds, as they are now (or were, for files
    // deleted since).
    const sourceNow = new Map<string, FileRecord>();
    for await (const record of client.iterateFiles({ pageSize: 100 }))
      sourceNow.set(record.id, record);

    // Restore into a new data dir, start a service on it.
    const restoredDir = join(work, 'restored');
    const restoring = await admin({ FILEHOST_DATA_DIR: restoredDir }, 'restore', backupDir);
    assert.match(restoring.stdout, /Restored .* \(every byte checked\)/);
    assert.match(restoring.stderr, /Restoring: \d+ of \d+ files/);
    restored = await spawnService(serviceEnv(restoredDir));
    assert.equal(restored.secretKey, source.secretKey, 'the default project keeps its keys');
    assert.equal(restored.publishableKey, source.publishableKey);
    const again = new FilehostClient({ endpoint: restored.apiUrl, apiKey: restored.secretKey });

    // Every file of the backup, byte for byte through the CDN, and its record as the
    // source had it; nothing else is ready.
    const sameOrigin = (record: FileRecord) => ({
      ...record,
      url: record.url?.replace(source.cdnUrl, '<cdn>') ?? null,
    });
    const restoredReady = new Map<string, FileRecord>();
    for await (const record of again.iterateFiles({ pageSize: 100 })) {
      if (record.status === 'ready') restoredReady.set(record.id, record);
    }
    for await (const record of new FilehostClient({
      endpoint: restored.apiUrl,
      apiKey: shopKey,
    }).iterateFiles()) {
      restoredReady.set(record.id, record);
    }
    assert.deepEqual([...restoredReady.keys()].sort(), [...inBackup].sort());
    for (const { id, size } of manifest.files) {
      const record = restoredReady.get(id) as FileRecord;
      const expected = id === shopUpload.id ? shopFile : (files.get(id) as Uploaded).bytes;
      assert.equal(size, expected.length);
      const sourceRecord = sourceNow.get(id) ?? before.get(id);
      if (sourceRecord) {
        assert.deepEqual(
          { ...sameOrigin(record), url: record.url?.replace(restored.cdnUrl, '<cdn>') ?? null },
          sameOrigin(sourceRecord),
          `the record of ${id}`,
        );
      }
      const url =
        record.visibility === 'private' ? (await again.signedUrl(id)).url : (record.url as string);
      const served = Buffer.from(await (await fetch(url)).arrayBuffer());
      assert.ok(served.equals(expected), `the bytes of ${id}`);
    }
    const oldLink = await fetch(`${restored.cdnUrl}${signedLink.pathname}${signedLink.search}`);
    assert.equal(oldLink.status, 200, 'a link signed by the source opens on the restored service');

    // Keys as they were: the admin's extra key works, the revoked one does not. (A
    // publishable key is used from a page of an allowed origin: the default's are loopback.)
    const list = (key: string) =>
      fetch(`${(restored as ChildService).apiUrl}/v1/files`, {
        headers: { Authorization: `Bearer ${key}`, Origin: 'http://localhost:5173' },
      });
    assert.equal((await list(extraKey)).status, 200);
    assert.equal((await list(revokedKey)).status, 401);
    assert.equal((await list(source.publishableKey)).status, 200);

    // The webhook is still configured, with the secret it was created with.
    assert.deepEqual(await again.listWebhooks(), await client.listWebhooks());
    const fresh = await again.upload(new Blob([patternBytes(10, 4242)]), { name: 'after.bin' });
    const deadline = Date.now() + 20_000;
    let delivery: ReturnType<WebhookReceiver['verify']> | undefined;
    while (!delivery && Date.now() < deadline) {
      for (const request of receiver.received) {
        const payload = receiver.verify(request, webhook.secret);
        if ((payload.data as { id?: string }).id === fresh.id) delivery = payload;
      }
      if (!delivery) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(delivery?.type, 'file.ready', 'the restored service signs with the stored secret');
  });

  it('refuses to restore into a data dir that is not empty, and leaves it as it was', async () => {
    const occupied = join(work, 'occupied');
    await mkdir(occupied);
    await writeFile(join(occupied, 'notes.txt'), 'mine');
    const refused = await adminRefused(
      { FILEHOST_DATA_DIR: occupied },
      'restore',
      join(work, 'backup'),
    );
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /is not empty: a restore fills an empty data directory only/);
    assert.deepEqual(await readdir(occupied), ['notes.txt']);
  });

  it('refuses a damaged backup: a truncated file, a truncated manifest; nothing is left behind', async () => {
    const manifest = JSON.parse(
      await readFile(join(work, 'backup', 'manifest.json'), 'utf8'),
    ) as BackupManifest;
    const largest = [...manifest.files].sort((a, b) => b.size - a.size)[0] as {
      id: string;
      size: number;
    };

    const truncatedFile = join(work, 'truncated-file');
    await cp(join(work, 'backup'), truncatedFile, { recursive: true });
    await truncate(
      join(truncatedFile, 'blobs', largest.id.slice(0, 2), largest.id),
      largest.size - 1,
    );
    const target = join(work, 'never');
    const refused = await adminRefused({ FILEHOST_DATA_DIR: target }, 'restore', truncatedFile);
    assert.match(
      refused.stderr,
      new RegExp(
        `is damaged: blobs/${largest.id.slice(0, 2)}/${largest.id} has ${largest.size - 1} bytes`,
      ),
    );

    const truncatedManifest = join(work, 'truncated-manifest');
    await cp(join(work, 'backup'), truncatedManifest, { recursive: true });
    const text = await readFile(join(truncatedManifest, 'manifest.json'), 'utf8');
    await writeFile(join(truncatedManifest, 'manifest.json'), text.slice(0, text.length / 2));
    const refusedManifest = await adminRefused(
      { FILEHOST_DATA_DIR: target },
      'restore',
      truncatedManifest,
    );
    assert.match(refusedManifest.stderr, /is damaged: manifest\.json is not JSON/);

    const truncatedDb = join(work, 'truncated-db');
    await cp(join(work, 'backup'), truncatedDb, { recursive: true });
    await truncate(join(truncatedDb, 'filehost.db'), 4096);
    const refusedDb = await adminRefused({ FILEHOST_DATA_DIR: target }, 'restore', truncatedDb);
    assert.match(refusedDb.stderr, /is damaged: filehost\.db has 4096 bytes/);

    assert.equal(await stat(target).catch(() => null), null, 'no data dir was made');
    assert.deepEqual(
      (await readdir(work)).filter((name) => name.includes('restoring')),
      [],
      'nothing half restored is left',
    );
  });

  it('a backup killed before it finished leaves nothing restore would take', async () => {
    const target = join(work, 'killed');
    const killed = await adminRefused(
      { ...serviceEnv(sourceDir()), FILEHOST_CRASH_AT: 'backup:copied' },
      'backup',
      target,
    ).catch((error: { signal?: string }) => error);
    // Killed by SIGKILL at the crash point, once every byte was copied but the manifest.
    assert.equal((killed as { signal?: string }).signal, 'SIGKILL');
    assert.equal(await stat(target).catch(() => null), null, 'the backup never appears');
    const leftover = (await readdir(work)).filter((name) => name.startsWith('.killed.incomplete-'));
    assert.equal(leftover.length, 1, 'what the killed backup wrote is in its hidden directory');
    const unfinished = join(work, leftover[0] as string);
    assert.ok((await readdir(unfinished)).includes('filehost.db'));
    for (const candidate of [unfinished, target]) {
      const refused = await adminRefused(
        { FILEHOST_DATA_DIR: join(work, 'from-killed') },
        'restore',
        candidate,
      );
      assert.equal(refused.code, 1);
      assert.match(
        refused.stderr,
        /not a filehost backup: it has no manifest\.json|is not a directory/,
      );
    }
  });

  it('is refused at scale, pointing at what to back up there', async () => {
    const refused = await adminRefused(
      {
        FILEHOST_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
        FILEHOST_DATA_DIR: sourceDir(),
      },
      'backup',
      join(work, 'at-scale'),
    );
    assert.match(refused.stderr, /is for the embedded deployment .* docs\/running-at-scale\.md/);
  });
});
