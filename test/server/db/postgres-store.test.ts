import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import type { FileRow } from '../../../src/server/db/metadata-store.js';
import { POSTGRES_MIGRATIONS } from '../../../src/server/db/postgres/migrations.js';
import { numberedPlaceholders } from '../../../src/server/db/postgres/placeholders.js';
import { PostgresMetadataStore } from '../../../src/server/db/postgres/postgres-store.js';
import { LIST_AFTER_POSITION } from '../../../src/server/db/sql/statements.js';
import { MetadataUnavailableError } from '../../../src/server/db/unavailable.js';
import { PostgresRateLimiter } from '../../../src/server/rate-limit/postgres-rate-limiter.js';
import { MemoryRateLimiter } from '../../../src/server/rate-limit/rate-limiter.js';
import { projectRow, readyFileRow } from '../../helpers/file-rows.js';
import { freePort } from '../../helpers/ports.js';
import { postgresAvailable, startPostgres, type TestPostgres } from '../../helpers/postgres.js';
import { startTcpProxy } from '../../helpers/tcp-proxy.js';
import { metadataStoreConformance } from './metadata-store.conformance.js';

// Decided before registering anything, so that a missing PostgreSQL shows as skipped tests
// with the reason (and fails under CI=true), never as passes.
const skip = postgresAvailable()?.skip ?? false;

/** One cluster for the whole file, started by the first test that needs it. */
let cluster: Promise<TestPostgres> | undefined;
function sharedCluster(): Promise<TestPostgres> {
  cluster ??= startPostgres().then((started) => {
    if ('skip' in started) throw new Error(started.skip);
    return started;
  });
  return cluster;
}
after(async () => {
  await cluster?.then(
    (started) => started.stop(),
    () => {},
  );
});

async function freshStore(options?: Parameters<typeof PostgresMetadataStore.open>[1]) {
  const url = await (await sharedCluster()).createDatabase();
  return { url, store: await PostgresMetadataStore.open(url, options) };
}

/**
 * Counts the statements reading files by id that any `pg` client of this process sends
 * while `fn` runs (a spy on the real client's `query`, talking to the real server).
 */
async function countingLookups<T>(
  fn: () => Promise<T>,
): Promise<{ result: T; count: number; names: Set<string | undefined> }> {
  const original = pg.Client.prototype.query;
  let count = 0;
  const names = new Set<string | undefined>();
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const config = args[0] as string | { text?: string; name?: string };
    const text = typeof config === 'string' ? config : (config?.text ?? '');
    if (/FROM files WHERE id (=|= ANY)/.test(text)) {
      count++;
      names.add(typeof config === 'string' ? undefined : config.name);
    }
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    return { result: await fn(), count, names };
  } finally {
    pg.Client.prototype.query = original;
  }
}

/** A plain client for looking at the database from outside the store. */
async function inspect<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const project = (id: string) => projectRow({ id });

const fileRow = (projectId: string, overrides: Partial<FileRow> = {}): FileRow =>
  readyFileRow({
    id: 'f_1',
    projectId,
    name: 'a.txt',
    mime: 'text/plain',
    size: 3,
    createdAt: 1_700_000_000_000,
    ...overrides,
  });

// A skipped suite shows its reason but is not counted in the run's summary; this is.
if (skip) it('PostgreSQL metadata store and rate limiter', { skip }, () => {});

describe('PostgreSQL', { skip }, () => {
  metadataStoreConformance('PostgreSQL', async () => {
    const { url, store } = await freshStore();
    // The database goes with the cluster in `after`; dropping each one costs time for nothing.
    return { store, another: () => PostgresMetadataStore.open(url), cleanup: async () => {} };
  });

  describe('PostgresMetadataStore specifics', () => {
    it('migrates once when several instances open a fresh database together, and keeps data', async () => {
      const url = await (await sharedCluster()).createDatabase();
      const stores = await Promise.all(
        [1, 2, 3, 4].map(() => PostgresMetadataStore.open(url, { poolSize: 2 })),
      );
      await stores[0]?.createProject(project('prj_1'));
      await Promise.all(stores.map((store) => store.close()));
      const versions = await inspect(url, async (client) =>
        (await client.query('SELECT version FROM schema_migrations ORDER BY version')).rows.map(
          (row: { version: number }) => row.version,
        ),
      );
      assert.deepEqual(
        versions,
        POSTGRES_MIGRATIONS.map((_, index) => index + 1),
      );
      const reopened = await PostgresMetadataStore.open(url);
      try {
        assert.deepEqual(await reopened.getProject('prj_1'), project('prj_1'));
      } finally {
        await reopened.close();
      }
    });

    it("keeps pending anonymous rows anonymous across the migration; ready ones made before count as the owner's", async () => {
      const url = await (await sharedCluster()).createDatabase();
      // The database as the version before left it: a ready file whose address was cleared
      // when it became ready, and an anonymous upload still pending.
      await inspect(url, async (client) => {
        await client.query(
          'CREATE TABLE schema_migrations (version integer PRIMARY KEY, applied_at bigint NOT NULL)',
        );
        const share = POSTGRES_MIGRATIONS.findIndex((sql) =>
          sql.includes('ADD COLUMN anonymous_share'),
        );
        for (const [index, sql] of POSTGRES_MIGRATIONS.slice(0, share).entries()) {
          await client.query(sql);
          await client.query('INSERT INTO schema_migrations VALUES ($1, 0)', [index + 1]);
        }
        await client.query(
          `INSERT INTO projects (id, name, plan, created_at) VALUES ('prj_m', 'M', 'free', 1)`,
        );
        await client.query(`INSERT INTO files (id, project_id, name, mime, size, created_at, status, expires_at, anonymous_address)
          VALUES ('ready', 'prj_m', 'a', 'text/plain', 100, 1, 'ready', NULL, NULL),
                 ('pending', 'prj_m', 'b', 'text/plain', 30, 1, 'pending', 9000000000000, '192.0.2.1')`);
      });
      const store = await PostgresMetadataStore.open(url);
      try {
        const usage = await store.usage('prj_m', 2);
        assert.deepEqual(
          [usage.storedBytes, usage.pendingBytes, usage.anonymousBytes, usage.anonymousUploads],
          [100, 30, 30, 1],
        );
        assert.equal((await store.getProject('prj_m'))?.anonymousShare, null);
      } finally {
        await store.close();
      }
    });

    it('answers bigint columns as numbers without changing pg for anyone else', async () => {
      const { store } = await freshStore();
      try {
        await store.createProject(project('prj_1'));
        const big = fileRow('prj_1', { size: 5 * 2 ** 40, createdAt: 2 ** 52, expiresAt: 2 ** 41 });
        await store.insertFile(big);
        assert.deepEqual(await store.getLiveFile(big.id), big);
        // The parser is the store pool's own: the library's global default is untouched.
        assert.equal(pg.types.getTypeParser(20, 'text')('5'), '5');
      } finally {
        await store.close();
      }
    });

    it('returns a file to exactly one of two concurrent deletes', async () => {
      const { store } = await freshStore();
      try {
        await store.createProject(project('prj_1'));
        for (let round = 0; round < 20; round++) {
          const row = fileRow('prj_1', { id: `f_${round}` });
          await store.insertFile(row);
          const results = await Promise.all([
            store.markDeleted('prj_1', row.id, 7),
            store.markDeleted('prj_1', row.id, 8),
          ]);
          assert.deepEqual(
            results.filter((result) => result !== null),
            [row],
          );
        }
      } finally {
        await store.close();
      }
    });

    it('answers lookups of one turn, asked in one statement, each as asked alone', async () => {
      const { store } = await freshStore();
      try {
        await store.createProject(project('prj_1'));
        const rows = Array.from({ length: 6 }, (_, i) => fileRow('prj_1', { id: `f_${i}` }));
        for (const row of rows) await store.insertFile(row);
        await store.markDeleted('prj_1', 'f_5', 7);
        const asked = ['f_0', 'f_1', 'f_0', 'f_nope', 'f_5', 'f_4', 'f_1\0', 'f_2', 'f_3'];
        const alone: (FileRow | null)[] = [];
        for (const id of asked) alone.push(await store.getLiveFile(id));
        const {
          result: together,
          count,
          names,
        } = await countingLookups(() => Promise.all(asked.map((id) => store.getLiveFile(id))));
        assert.deepEqual(together, alone);
        assert.deepEqual(
          alone.map((row) => row?.id ?? null),
          ['f_0', 'f_1', 'f_0', null, null, 'f_4', null, 'f_2', 'f_3'],
        );
        // One statement for the batch; the id with a NUL, which PostgreSQL would refuse
        // (failing the batch), is answered none without asking.
        assert.equal(count, 1);
        // Lookups of later turns are statements of their own.
        const later = await countingLookups(async () => [
          await store.getLiveFile('f_1'),
          await store.getLiveFile('f_nope'),
        ]);
        assert.deepEqual(
          later.result.map((row) => row?.id ?? null),
          ['f_1', null],
        );
        assert.equal(later.count, 2);
        // Prepared, each batch size by its statement.
        assert.deepEqual([...names], ['filehost_live_files']);
        assert.deepEqual([...later.names], ['filehost_live_file']);
      } finally {
        await store.close();
      }
    });

    it('keeps an exclusive task to one instance at a time', async () => {
      const { url, store: first } = await freshStore();
      const second = await PostgresMetadataStore.open(url);
      try {
        let release!: () => void;
        const gate = new Promise<void>((resolve) => {
          release = resolve;
        });
        const running = first.runExclusive('sweep', () => gate.then(() => 'first'));
        await new Promise((resolve) => setTimeout(resolve, 50));
        assert.deepEqual(await second.runExclusive('sweep', async () => 'second'), { ran: false });
        release();
        assert.deepEqual(await running, { ran: true, value: 'first' });
        assert.deepEqual(await second.runExclusive('sweep', async () => 'second'), {
          ran: true,
          value: 'second',
        });
      } finally {
        await Promise.all([first.close(), second.close()]);
      }
    });

    it('does not wrap errors that retrying would not fix', async () => {
      const { store } = await freshStore();
      try {
        await store.createProject(project('prj_1'));
        await assert.rejects(store.createProject(project('prj_1')), (error: unknown) => {
          assert.ok(!(error instanceof MetadataUnavailableError));
          assert.equal((error as { code?: unknown }).code, '23505');
          return true;
        });
      } finally {
        await store.close();
      }
    });

    it('pages 1,000,000 files by walking the listing index from the cursor', async () => {
      const { url, store } = await freshStore();
      try {
        await store.createProject(project('prj_big'));
        await store.createProject(project('prj_other'));
        const cursor = await inspect(url, async (client) => {
          // One statement: a tenth deleted (not listed), three files per millisecond so ids
          // break ties, and a second project so the project condition has to select.
          await client.query(
            `INSERT INTO files (id, project_id, name, mime, size, created_at, status, metadata)
             SELECT 'f' || lpad(i::text, 7, '0'), CASE WHEN i % 50 = 0 THEN 'prj_other' ELSE 'prj_big' END,
                    'n', 'text/plain', i, 1700000000000 + i / 3,
                    CASE WHEN i % 10 = 1 THEN 'deleted' ELSE 'ready' END, '{}'
             FROM generate_series(1, 1000000) AS i`,
          );
          await client.query('ANALYZE files');
          // Deep: some 790,000 listed files are newer than this position.
          return { createdAt: 1_700_000_000_000 + Math.floor(100_000 / 3), id: 'f0100000' };
        });
        const values = ['prj_big', cursor.createdAt, cursor.id, 50];
        const plan = await inspect(url, async (client) => {
          const result = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
            `EXPLAIN (ANALYZE, FORMAT JSON) ${numberedPlaceholders(LIST_AFTER_POSITION)}`,
            values,
          );
          return (result.rows[0] as { 'QUERY PLAN': [{ Plan: PlanNode }] })['QUERY PLAN'][0].Plan;
        });
        const nodes = flatten(plan);
        const types = nodes.map((node) => node['Node Type']);
        const scan = nodes.find((node) => node['Index Name'] === 'files_listing');
        assert.ok(scan, `no scan of files_listing in ${types.join(' > ')}`);
        assert.match(scan['Node Type'], /^Index (Only )?Scan$/);
        assert.equal(scan['Scan Direction'], 'Forward');
        // The cursor is where the walk starts (an index condition), not a filter applied to
        // every row before it: the scan reads one page of rows and discards none.
        assert.match(scan['Index Cond'] ?? '', /ROW\(created_at, id\) < ROW\(/);
        assert.ok((scan['Actual Rows'] ?? Number.POSITIVE_INFINITY) <= 50, JSON.stringify(scan));
        assert.equal(scan['Rows Removed by Filter'] ?? 0, 0);
        assert.ok(!types.includes('Sort'), types.join(' > '));
        assert.ok(!types.includes('Seq Scan'), types.join(' > '));

        const page = await store.listFiles('prj_big', cursor, 3);
        assert.deepEqual(
          page.map((row) => row.id),
          ['f0099999', 'f0099998', 'f0099997'],
        );
      } finally {
        await store.close();
      }
    });

    it('shares one rate limit between instances: 20 takes at once, capacity 5, 5 allowed', async () => {
      const { url, store: first } = await freshStore();
      const second = await PostgresMetadataStore.open(url);
      try {
        const now = () => 1_750_000_000_000;
        const limiters = [
          new PostgresRateLimiter(first.pool, 5, now),
          new PostgresRateLimiter(second.pool, 5, now),
        ];
        const waits = await Promise.all(
          Array.from({ length: 20 }, (_, index) => limiters[index % 2]?.take('key|1.2.3.4')),
        );
        assert.equal(waits.filter((wait) => wait === 0).length, 5, String(waits));
        // Empty bucket, 5 per minute: the next token is 12 s away.
        assert.deepEqual(
          waits.filter((wait) => wait !== 0),
          Array(15).fill(12),
        );
      } finally {
        await Promise.all([first.close(), second.close()]);
      }
    });

    it('answers as the memory limiter does at every moment, and prunes full buckets', async () => {
      const { url, store } = await freshStore();
      try {
        let time = 1_000_000;
        const postgres = new PostgresRateLimiter(store.pool, 3, () => time);
        const memory = new MemoryRateLimiter(3, () => time);
        const steps = [
          0, 0, 0, 0, 1, 7_000, 12_345, 19_999, 20_000, 20_001, 45_000, 45_000, 500_000,
        ];
        for (const at of steps) {
          time = 1_000_000 + at;
          for (const key of ['a', 'b']) {
            assert.equal(await postgres.take(key), await memory.take(key), `${key} at +${at} ms`);
          }
        }
        for (let i = 0; i < 3; i++) await postgres.take('c');
        time += 30_000; // 'a' and 'b' are full again; 'c' has 1.5 of its 3 tokens back
        await postgres.prune();
        const keys = await inspect(url, async (client) =>
          (await client.query('SELECT key FROM rate_buckets ORDER BY key')).rows.map(
            (row: { key: string }) => row.key,
          ),
        );
        assert.deepEqual(keys, ['c']);
      } finally {
        await store.close();
      }
    });

    it('fails at once with MetadataUnavailableError when nothing listens', async () => {
      const started = Date.now();
      const port = await freePort();
      await assert.rejects(
        PostgresMetadataStore.open(`postgres://postgres@127.0.0.1:${port}/filehost`),
        MetadataUnavailableError,
      );
      assert.ok(Date.now() - started < 10_000);
    });

    it('gives up on a server that accepts connections but never answers', async () => {
      const sockets = new Set<Socket>();
      const silent = createServer((socket) => {
        sockets.add(socket);
      });
      await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
      const { port } = silent.address() as { port: number };
      try {
        const started = Date.now();
        await assert.rejects(
          PostgresMetadataStore.open(`postgres://postgres@127.0.0.1:${port}/filehost`, {
            timeoutMs: 1000,
          }),
          MetadataUnavailableError,
        );
        assert.ok(Date.now() - started < 10_000);
      } finally {
        for (const socket of sockets) socket.destroy();
        await new Promise((resolve) => silent.close(resolve));
      }
    });

    it('cancels a statement stuck behind a lock with MetadataUnavailableError', async () => {
      const { url, store } = await freshStore({ timeoutMs: 1000 });
      const blocker = new pg.Client({ connectionString: url });
      await blocker.connect();
      try {
        await store.createProject(project('prj_1'));
        await store.insertFile(fileRow('prj_1'));
        await blocker.query('BEGIN');
        await blocker.query(`SELECT 1 FROM files WHERE id = 'f_1' FOR UPDATE`);
        const started = Date.now();
        await assert.rejects(store.markDeleted('prj_1', 'f_1', 5), (error: unknown) => {
          assert.ok(error instanceof MetadataUnavailableError);
          assert.equal((error.cause as { code?: unknown }).code, '57014');
          return true;
        });
        assert.ok(Date.now() - started < 10_000);
        await blocker.query('ROLLBACK');
        // The pool is still good afterwards.
        assert.equal((await store.markDeleted('prj_1', 'f_1', 6))?.id, 'f_1');
      } finally {
        await blocker.end();
        await store.close();
      }
    });

    it('fails a write whose COMMIT timed out only once that COMMIT has ended, so what it wrote can be taken back', async () => {
      const { url } = await freshStore();
      // Between the store and its server: holds back the next COMMIT (and what follows it) for
      // a while, as a server whose fsync stalls, past the store's own wait for the answer.
      const HELD_MS = 10_000;
      let holdNextCommit = false;
      const proxy = await startTcpProxy(new URL(url), () => ({
        fromClient: (chunk) => {
          if (!holdNextCommit || !chunk.includes('COMMIT')) return 'pass';
          holdNextCommit = false;
          return new Promise((resolve) => setTimeout(resolve, HELD_MS));
        },
      }));
      const proxied = new URL(url);
      proxied.port = String(proxy.port);
      let store: PostgresMetadataStore | undefined;
      try {
        // It awaits an answer 4 s (`timeoutMs` + 1 s), and as long again for the ROLLBACK
        // queued behind: the COMMIT arrives 2 s after both, and 2 s before the server would
        // end the transaction as idle (4 × `timeoutMs`).
        store = await PostgresMetadataStore.open(proxied.href, { timeoutMs: 3000 });
        await store.createProject(project('prj_1'));
        holdNextCommit = true;
        // A sign's reservation: its check and its rows in one transaction.
        const pending = fileRow('prj_1', { status: 'pending', expiresAt: 2_000_000_000_000 });
        const reservation = { quota: { storageBytes: null, pendingUploads: 1_000 }, now: 0 };
        await assert.rejects(
          store.insertFiles('prj_1', [pending], reservation),
          MetadataUnavailableError,
        );
        // The failure is heard once the COMMIT has ended (here: committed), so a take-back
        // that looks now finds the row; before, it found nothing and the row stayed.
        const found = await inspect(url, (client) =>
          client.query(`SELECT id FROM files WHERE id = 'f_1'`),
        );
        assert.equal(found.rowCount, 1, 'the row the late COMMIT wrote is seen');
        assert.equal((await store.markDeleted('prj_1', 'f_1', 5))?.id, 'f_1');
      } finally {
        await store?.close();
        await proxy.close();
      }
    });

    it('fails calls with MetadataUnavailableError once its server is gone, without crashing', async () => {
      const own = await startPostgres();
      if ('skip' in own) throw new Error(own.skip);
      let stopped = false;
      try {
        const store = await PostgresMetadataStore.open(await own.createDatabase());
        try {
          await store.createProject(project('prj_1'));
          // An exclusive task holds a connection idle while the server goes away.
          let release!: () => void;
          const gate = new Promise<void>((resolve) => {
            release = resolve;
          });
          const task = store.runExclusive('sweep', () => gate.then(() => 'done'));
          await new Promise((resolve) => setTimeout(resolve, 50));
          await own.stop();
          stopped = true;
          const started = Date.now();
          await assert.rejects(store.getProject('prj_1'), MetadataUnavailableError);
          await assert.rejects(store.listFiles('prj_1', null, 10), MetadataUnavailableError);
          assert.ok(Date.now() - started < 10_000, `${Date.now() - started} ms`);
          release();
          assert.deepEqual(await task, { ran: true, value: 'done' });
          await assert.rejects(
            store.runExclusive('sweep', async () => 1),
            MetadataUnavailableError,
          );
        } finally {
          await store.close();
        }
      } finally {
        if (!stopped) await own.stop();
      }
    });
  });
});

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Scan Direction'?: string;
  'Actual Rows'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

function flatten(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(flatten)];
}
