import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventType } from '../../../src/api/events.js';
import type {
  ClaimedDelivery,
  EventDraft,
  FileRow,
  MetadataStore,
  Project,
  Reservation,
  UploadTokenRow,
  WebhookRow,
} from '../../../src/server/db/metadata-store.js';
import { QuotaExceededError, TokenExhaustedError } from '../../../src/server/db/metadata-store.js';
import { hashKey, newId } from '../../../src/server/ground/secrets.js';
import { projectRow } from '../../helpers/file-rows.js';

/**
 * The contract every MetadataStore keeps. A new implementation (PostgreSQL, say) calls
 * this with a factory and must pass it unchanged.
 */
export function metadataStoreConformance(
  name: string,
  create: () => Promise<{
    store: MetadataStore;
    /** Another store on the same database: a second connection, as a second instance has. */
    another: () => Promise<MetadataStore>;
    cleanup: () => Promise<void>;
  }>,
): void {
  const withStore =
    (
      fn: (
        store: MetadataStore,
        project: Project,
        another: () => Promise<MetadataStore>,
      ) => Promise<void>,
    ) =>
    async () => {
      const { store, another, cleanup } = await create();
      try {
        const project = projectRow({ id: newId('prj_'), allowedOrigins: ['https://a.test'] });
        await store.createProject(project);
        await fn(store, project, another);
      } finally {
        await store.close();
        await cleanup();
      }
    };

  const webhook = (projectId: string, events: EventType[]): WebhookRow => ({
    id: newId('wh_'),
    projectId,
    url: 'http://hooks.test/in',
    events,
    secret: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0',
    createdAt: 1,
  });
  const draft = (type: EventType, at = 5): EventDraft => ({
    id: newId('evt_'),
    type,
    at,
    data: (row) => ({ id: row.id, status: row.status }),
  });

  const file = (projectId: string, overrides: Partial<FileRow> = {}): FileRow => ({
    id: newId(),
    projectId,
    name: 'a.txt',
    mime: 'text/plain',
    size: 3,
    createdAt: 1_700_000_000_000,
    status: 'ready',
    metadata: { user: 'u1' },
    partSize: null,
    storageUploadId: null,
    checksum: null,
    expiresAt: null,
    deletedAt: null,
    uploadTokenHash: null,
    completedParts: null,
    visibility: 'public',
    deleteAt: null,
    tokenId: null,
    anonymousAddress: null,
    scannedAt: null,
    importState: null,
    placeholder: null,
    ...overrides,
  });

  describe(`MetadataStore conformance: ${name}`, () => {
    it(
      'answers its readiness probe while it takes writes, and the probe writes nothing',
      withStore(async (store, project) => {
        const before = await store.usage(project.id, 0);
        await store.probe();
        await Promise.all([store.probe(), store.probe(), store.probe()]);
        assert.deepEqual(await store.usage(project.id, 0), before);
      }),
    );

    it(
      'keeps an import: progress and lease while pending, its error once failed, abandoned ones by lease',
      withStore(async (store, project) => {
        const state = { receivedBytes: 0, totalBytes: null, error: null };
        const live = file(project.id, {
          status: 'pending',
          size: 100,
          expiresAt: 10_000,
          importState: state,
        });
        const dead = file(project.id, {
          status: 'pending',
          size: 100,
          expiresAt: 1_000,
          importState: state,
        });
        const plain = file(project.id, {
          status: 'pending',
          size: 100,
          expiresAt: 1_000,
          partSize: 5,
        });
        await store.insertFiles(project.id, [live, dead, plain], {
          quota: { storageBytes: null, pendingUploads: null },
          now: 0,
        });
        const progress = { receivedBytes: 40, totalBytes: 100, error: null };
        assert.equal(await store.recordImportProgress(live.id, progress, 20_000), true);
        const read = await store.getVisibleFile(project.id, live.id);
        assert.deepEqual(read?.importState, progress);
        assert.equal(read?.expiresAt, 20_000);
        // An abandoned import is found by its lease, and only imports are.
        assert.deepEqual(
          (await store.listAbandonedImports(5_000, 10)).map((row) => row.id),
          [dead.id],
        );
        assert.deepEqual(
          (await store.listExpiredPending(5_000, 10)).map((row) => row.id),
          [plain.id],
        );
        // Failed: deleted with its error and its event, found as a failed import after `since`.
        const failure = {
          ...progress,
          error: { code: 'import_http_error' as const, message: 'no', status: 404 },
        };
        const failed = await store.failImport(dead.id, 3_000, failure, draft('file.import_failed'));
        assert.equal(failed?.status, 'deleted');
        assert.deepEqual(failed?.importState, failure);
        assert.equal(await store.failImport(dead.id, 3_000, failure), null, 'fails once');
        assert.equal(await store.recordImportProgress(dead.id, progress, 30_000), false);
        assert.equal(await store.getVisibleFile(project.id, dead.id), null);
        assert.equal((await store.getFailedImport(project.id, dead.id, 2_000))?.id, dead.id);
        assert.equal(await store.getFailedImport(project.id, dead.id, 3_000), null);
        assert.equal(await store.getFailedImport('prj_other', dead.id, 0), null);
        assert.equal(await store.getFailedImport(project.id, live.id, 0), null);
        const events = await store.listEvents(project.id, null, 10);
        assert.deepEqual(
          events.map((event) => event.type),
          ['file.import_failed'],
        );
        // Ready: the progress no longer moves it.
        assert.equal(await store.markReady(live.id, 'pending', { size: 100 }), true);
        assert.equal(await store.recordImportProgress(live.id, progress, 40_000), false);
      }),
    );

    it(
      'stores projects and updates their plan and origins',
      withStore(async (store, project) => {
        assert.deepEqual(await store.getProject(project.id), project);
        const updated = await store.updateProject(project.id, {
          plan: 'paid',
          allowedOrigins: ['https://b.test', 'http://localhost:5173'],
        });
        assert.deepEqual(updated, {
          ...project,
          plan: 'paid',
          allowedOrigins: ['https://b.test', 'http://localhost:5173'],
        });
        assert.deepEqual(await store.getProject(project.id), updated);
        assert.equal(await store.updateProject('prj_missing', { plan: 'paid' }), null);
        assert.deepEqual(
          (await store.listProjects()).map((p) => p.id),
          [project.id],
        );
      }),
    );

    it(
      'keeps image variants of ready files: least recently served first, counted in usage, gone with the file',
      withStore(async (store, project, another) => {
        const ready = file(project.id, { size: 1000 });
        const pending = file(project.id, { status: 'pending' });
        await store.insertFile(ready);
        await store.insertFile(pending);
        const variant = (name: string, size: number, servedAt: number) => ({
          fileId: ready.id,
          name,
          size,
          servedAt,
        });
        const record = async (row: ReturnType<typeof variant>) =>
          (await store.recordVariant(row, project.id, 1_000_000)).recorded;
        assert.equal(await record(variant('a.webp', 10, 100)), true);
        assert.equal(await record(variant('b.webp', 20, 200)), true);
        assert.equal(await record(variant('c.webp', 40, 200)), true);
        // Recorded twice (two instances made it): one row.
        assert.equal(await record(variant('a.webp', 10, 100)), true);
        assert.equal(
          await record({ ...variant('x.webp', 5, 1), fileId: pending.id }),
          false,
          'only for a ready file',
        );
        assert.deepEqual(await store.getVariant(ready.id, 'b.webp'), variant('b.webp', 20, 200));
        assert.equal(await store.getVariant(ready.id, 'x.webp'), null);
        const usage = await store.usage(project.id, 0);
        assert.equal(usage.variantBytes, 70);
        assert.equal(usage.storedBytes, 1000, 'variants are not stored bytes');
        // Most recently served kept, ties by name (the later name first).
        assert.deepEqual(await store.variantsBeyond(ready.id, 1), ['b.webp', 'a.webp']);
        // Touched only if served before the bound: an older write loses.
        await store.touchVariant(ready.id, 'a.webp', 300, 150);
        await store.touchVariant(ready.id, 'b.webp', 250, 150);
        assert.deepEqual(await store.variantsBeyond(ready.id, 1), ['c.webp', 'b.webp']);
        // One remover wins, across connections (instances evicting at once).
        const second = await another();
        try {
          const removed = await Promise.all([
            store.removeVariant(ready.id, 'b.webp'),
            second.removeVariant(ready.id, 'b.webp'),
          ]);
          assert.deepEqual(removed.sort(), [false, true]);
        } finally {
          await second.close();
        }
        assert.equal((await store.usage(project.id, 0)).variantBytes, 50);
        // A deleted file's variants stop counting at once, and go with its purge.
        await store.markDeleted(project.id, ready.id, 5);
        assert.equal((await store.usage(project.id, 0)).variantBytes, 0);
        assert.equal(await record(variant('d.webp', 1, 400)), false);
        await store.removeVariants(ready.id);
        assert.deepEqual(await store.variantsBeyond(ready.id, 0), []);
      }),
    );

    it(
      "keeps a project's variants within its budget: the least recently served forgotten first, atomically across connections",
      withStore(async (store, project, another) => {
        const [one, two] = [file(project.id, { size: 1000 }), file(project.id, { size: 1000 })];
        await store.insertFile(one);
        await store.insertFile(two);
        const record = (fileId: string, name: string, size: number, servedAt: number) =>
          store.recordVariant({ fileId, name, size, servedAt }, project.id, 100);
        const sorted = (keys: Array<{ fileId: string; name: string }>) =>
          keys.map((key) => `${key.fileId === one.id ? 'one' : 'two'}/${key.name}`).sort();
        assert.deepEqual(await record(one.id, 'a', 10, 100), { recorded: true, evicted: [] });
        assert.deepEqual(await record(two.id, 'b', 20, 200), { recorded: true, evicted: [] });
        assert.deepEqual(await record(one.id, 'c', 30, 300), { recorded: true, evicted: [] });
        // 110 bytes with d: the least recently served (a) makes room.
        const d = await record(two.id, 'd', 50, 400);
        assert.equal(d.recorded, true);
        assert.deepEqual(sorted(d.evicted), ['one/a']);
        assert.equal((await store.usage(project.id, 0)).variantBytes, 100);
        // b served again: c, then d, are now the least recently served.
        await store.touchVariant(two.id, 'b', 500, 500);
        const e = await record(one.id, 'e', 40, 600);
        assert.deepEqual(sorted(e.evicted), ['one/c', 'two/d']);
        assert.equal((await store.usage(project.id, 0)).variantBytes, 60);
        assert.equal(await store.getVariant(two.id, 'b').then((row) => row?.size), 20);
        // Served before anything else (another instance's clock behind), the one recorded
        // still stays: it is the one just made.
        const late = await record(two.id, 'f', 70, 1);
        assert.deepEqual(sorted(late.evicted), ['one/e', 'two/b']);
        assert.equal((await store.usage(project.id, 0)).variantBytes, 70);

        // Many recordings at once from two connections (two instances): the sum never
        // passes the budget, and every variant is either recorded or evicted, once.
        const second = await another();
        try {
          const names = Array.from({ length: 24 }, (_, index) => `burst-${index}`);
          const results = await Promise.all(
            names.map((name, index) =>
              (index % 2 ? second : store).recordVariant(
                { fileId: index % 3 ? one.id : two.id, name, size: 15, servedAt: 1000 + index },
                project.id,
                100,
              ),
            ),
          );
          assert.ok(results.every((result) => result.recorded));
          const evicted = results.flatMap((result) => result.evicted.map((key) => key.name));
          assert.equal(new Set(evicted).size, evicted.length, 'each evicted once');
          const usage = await store.usage(project.id, 0);
          assert.ok(usage.variantBytes <= 100, `${usage.variantBytes} bytes of 100`);
          const left = names.filter((name) => !evicted.includes(name));
          assert.equal(usage.variantBytes, 15 * left.length + (evicted.includes('f') ? 0 : 70));
          assert.equal(left.length, 6, `left: ${left.join(', ')}`);
        } finally {
          await second.close();
        }
        // Removed otherwise (a file's purge, a variant found lost), variants give their room
        // back: the budget counts what is recorded, whatever removed the rest.
        await store.removeVariants(one.id);
        await store.removeVariant(two.id, 'burst-0');
        await store.removeVariants(two.id);
        assert.deepEqual(await record(one.id, 'g', 100, 2000), { recorded: true, evicted: [] });
        assert.deepEqual(sorted((await record(two.id, 'h', 1, 2001)).evicted), ['one/g']);
        assert.equal((await store.usage(project.id, 0)).variantBytes, 1);
      }),
    );

    it(
      "keeps a project's allowed types: a list, or null for every type",
      withStore(async (store, project) => {
        assert.equal(project.allowedTypes, null);
        const listed = await store.updateProject(project.id, {
          allowedTypes: ['image/*', 'application/pdf'],
        });
        assert.deepEqual(listed?.allowedTypes, ['image/*', 'application/pdf']);
        // A patch without it leaves it; null removes it.
        assert.deepEqual(
          (await store.updateProject(project.id, { name: 'Renamed' }))?.allowedTypes,
          ['image/*', 'application/pdf'],
        );
        assert.equal(
          (await store.updateProject(project.id, { allowedTypes: null }))?.allowedTypes,
          null,
        );
        assert.equal((await store.getProject(project.id))?.allowedTypes, null);
      }),
    );

    it(
      'loses no field when patches of different fields of one project run at once',
      withStore(async (store, project) => {
        await Promise.all([
          store.updateProject(project.id, { name: 'New name' }),
          store.updateProject(project.id, { plan: 'paid' }),
          store.updateProject(project.id, { allowedOrigins: ['https://c.test'] }),
          store.updateProject(project.id, { allowedTypes: ['text/plain'] }),
        ]);
        assert.deepEqual(await store.getProject(project.id), {
          ...project,
          name: 'New name',
          plan: 'paid',
          allowedOrigins: ['https://c.test'],
          allowedTypes: ['text/plain'],
        });
      }),
    );

    it(
      'loses no field when patches of different fields arrive on two connections at once',
      withStore(async (store, project, another) => {
        const second = await another();
        try {
          // Many rounds, each pair overlapping: a read-then-write patch loses one of them.
          for (let round = 0; round < 20; round++) {
            await Promise.all([
              store.updateProject(project.id, { name: `Name ${round}` }),
              second.updateProject(project.id, { storageQuota: round }),
              second.updateProject(project.id, { allowedOrigins: [`https://${round}.test`] }),
              store.updateProject(project.id, { maxPendingUploads: round }),
            ]);
            const now = await store.getProject(project.id);
            assert.deepEqual(
              [now?.name, now?.storageQuota, now?.allowedOrigins, now?.maxPendingUploads],
              [`Name ${round}`, round, [`https://${round}.test`], round],
            );
          }
        } finally {
          await second.close();
        }
      }),
    );

    it(
      'finds live keys by hash with their project; revoked keys are not found',
      withStore(async (store, project) => {
        const row = {
          id: newId('key_'),
          projectId: project.id,
          kind: 'secret' as const,
          hash: hashKey('sk_live_x'),
          hint: 'sk_live_…x',
          createdAt: 2,
          revokedAt: null,
        };
        await store.addKey(row);
        const found = await store.findKeyByHash(row.hash);
        assert.deepEqual(found, { key: row, project });
        assert.equal(await store.findKeyByHash(hashKey('other')), null);
        assert.equal(await store.revokeKey(row.id, 5), true);
        assert.equal(await store.revokeKey(row.id, 6), false);
        assert.equal(await store.findKeyByHash(row.hash), null);
        assert.deepEqual(await store.listKeys(project.id), [{ ...row, revokedAt: 5 }]);
      }),
    );

    it(
      'shows pending and ready files only, and only to their project',
      withStore(async (store, project) => {
        const other: Project = { ...project, id: newId('prj_') };
        await store.createProject(other);
        const ready = file(project.id);
        const pending = file(project.id, { status: 'pending', partSize: 5, expiresAt: 9 });
        const receiving = file(project.id, { status: 'receiving' });
        const checked = file(project.id, { status: 'pending', partSize: 5, checksum: 'md5' });
        for (const row of [ready, pending, receiving, checked]) await store.insertFile(row);
        assert.deepEqual(await store.getVisibleFile(project.id, checked.id), checked);
        assert.deepEqual(await store.getVisibleFile(project.id, ready.id), ready);
        assert.deepEqual(await store.getVisibleFile(project.id, pending.id), pending);
        assert.equal(await store.getVisibleFile(project.id, receiving.id), null);
        assert.equal(await store.getVisibleFile(other.id, ready.id), null);
        assert.deepEqual(await store.getLiveFile(receiving.id), receiving);
        // No file has an id with a NUL (PostgreSQL's text cannot hold one): none, not an error.
        assert.equal(await store.getLiveFile(`${ready.id}\0`), null);
        const listed = await store.listFiles(project.id, null, 10);
        assert.deepEqual(
          new Set(listed.map((row) => row.id)),
          new Set([ready.id, pending.id, checked.id]),
        );
        assert.deepEqual(await store.listFiles(other.id, null, 10), []);
      }),
    );

    it(
      'lists newest first, then by id in byte order, strictly after a position',
      withStore(async (store, project) => {
        const ids = ['A', 'B', 'Z', '_', 'a', 'b', '-', '0'].map((c) => `${c}${newId().slice(1)}`);
        const rows = ids.map((id, index) =>
          file(project.id, { id, createdAt: 1000 + (index % 2) }),
        );
        for (const row of rows) await store.insertFile(row);
        const expected = [...rows]
          .sort(
            (a, b) =>
              b.createdAt - a.createdAt || Buffer.compare(Buffer.from(b.id), Buffer.from(a.id)),
          )
          .map((row) => row.id);
        assert.deepEqual(
          (await store.listFiles(project.id, null, 100)).map((row) => row.id),
          expected,
        );
        const third = (await store.listFiles(project.id, null, 3)).at(-1) as FileRow;
        const rest = await store.listFiles(
          project.id,
          { createdAt: third.createdAt, id: third.id },
          100,
        );
        assert.deepEqual(
          rest.map((row) => row.id),
          expected.slice(3),
        );
        // A position is not a reference: a deleted or never-existing row still works.
        const gone = await store.listFiles(project.id, { createdAt: 1001, id: '~' }, 100);
        assert.deepEqual(
          gone.map((row) => row.id),
          expected,
        );
      }),
    );

    it(
      'moves rows to ready only from the expected state',
      withStore(async (store, project) => {
        const receiving = file(project.id, { status: 'receiving', size: 0, name: 'upload' });
        await store.insertFile(receiving);
        assert.equal(await store.markReady(receiving.id, 'pending', {}), false);
        assert.equal(
          await store.markReady(receiving.id, 'receiving', {
            name: 'b.png',
            mime: 'image/png',
            size: 9,
            metadata: { k: 'v' },
            createdAt: 5,
          }),
          true,
        );
        assert.deepEqual(await store.getVisibleFile(project.id, receiving.id), {
          ...receiving,
          status: 'ready',
          name: 'b.png',
          mime: 'image/png',
          size: 9,
          metadata: { k: 'v' },
          createdAt: 5,
        });
        assert.equal(await store.markReady(receiving.id, 'receiving', {}), false);
      }),
    );

    it(
      'keeps when a file was scanned, and takes an infected one out of its state with its event',
      withStore(async (store, project) => {
        const pending = file(project.id, { status: 'pending' });
        await store.insertFile(pending);
        assert.equal(
          await store.markReady(pending.id, 'pending', {
            scannedAt: 1_234,
            placeholder: 'YJqGPQ==',
          }),
          true,
        );
        const ready = await store.getVisibleFile(project.id, pending.id);
        assert.equal(ready?.scannedAt, 1_234);
        assert.equal(ready?.placeholder, 'YJqGPQ==');

        const draft = (id: string) => ({
          id,
          type: 'file.infected' as const,
          at: 9,
          data: (row: FileRow) => ({ id: row.id, status: row.status, signature: 'Eicar' }),
        });
        for (const from of ['pending', 'receiving'] as const) {
          const infected = file(project.id, { status: from });
          await store.insertFile(infected);
          const other = from === 'pending' ? 'receiving' : 'pending';
          assert.equal(
            await store.markInfected(infected.id, other, 9, draft(newId('evt_'))),
            false,
          );
          const eventId = newId('evt_');
          assert.equal(await store.markInfected(infected.id, from, 9, draft(eventId)), true);
          assert.equal(await store.getLiveFile(infected.id), null);
          assert.ok((await store.listDeletedUnpurged(100)).some((row) => row.id === infected.id));
          const events = await store.listEvents(project.id, null, 100);
          const event = events.find((candidate) => candidate.id === eventId);
          assert.deepEqual(event?.data, { id: infected.id, status: 'deleted', signature: 'Eicar' });
          assert.equal(await store.markInfected(infected.id, from, 9, draft(newId('evt_'))), false);
        }
      }),
    );

    it(
      "keeps a file's visibility: as inserted, and as markReady sets it (null keeps it)",
      withStore(async (store, project) => {
        const signed = file(project.id, { status: 'pending', visibility: 'private' });
        await store.insertFile(signed);
        assert.equal((await store.getLiveFile(signed.id))?.visibility, 'private');
        assert.equal(await store.markReady(signed.id, 'pending', {}), true);
        assert.equal((await store.getVisibleFile(project.id, signed.id))?.visibility, 'private');
        const receiving = file(project.id, { status: 'receiving' });
        await store.insertFile(receiving);
        assert.equal(
          await store.markReady(receiving.id, 'receiving', { visibility: 'private' }),
          true,
        );
        const listed = await store.listFiles(project.id, null, 10);
        assert.deepEqual(
          listed.map((row) => [row.id, row.visibility]).sort(),
          [
            [signed.id, 'private'],
            [receiving.id, 'private'],
          ].sort(),
        );
      }),
    );

    it(
      'deletes: gone from reads at once, queued for purging until marked purged',
      withStore(async (store, project) => {
        const row = file(project.id);
        await store.insertFile(row);
        assert.equal(await store.markDeleted('prj_other', row.id, 7), null);
        assert.deepEqual(await store.markDeleted(project.id, row.id, 7), row);
        assert.equal(await store.markDeleted(project.id, row.id, 8), null);
        assert.equal(await store.getVisibleFile(project.id, row.id), null);
        assert.equal(await store.getLiveFile(row.id), null);
        assert.deepEqual(await store.listFiles(project.id, null, 10), []);
        assert.deepEqual(
          (await store.listDeletedUnpurged(10)).map((r) => r.id),
          [row.id],
        );
        await store.markPurged(row.id);
        assert.deepEqual(await store.listDeletedUnpurged(10), []);
      }),
    );

    it(
      'discards receiving rows and lists them for recovery',
      withStore(async (store, project) => {
        const row = file(project.id, { status: 'receiving' });
        await store.insertFile(row);
        assert.deepEqual(
          (await store.listReceiving(10)).map((r) => r.id),
          [row.id],
        );
        await store.discardReceiving(row.id);
        assert.deepEqual(await store.listReceiving(10), []);
        assert.equal(await store.getLiveFile(row.id), null);
      }),
    );

    it(
      'finds and expires abandoned pending uploads, extends live ones',
      withStore(async (store, project) => {
        const old = file(project.id, { status: 'pending', partSize: 5, expiresAt: 100 });
        const live = file(project.id, { status: 'pending', partSize: 5, expiresAt: 100 });
        await store.insertFile(old);
        await store.insertFile(live);
        await store.extendExpiry(live.id, 1000);
        await store.setStorageUploadId(old.id, 'upload-1');
        assert.deepEqual(
          (await store.listExpiredPending(500, 10)).map((r) => r.id),
          [old.id],
        );
        assert.equal(await store.expirePending(old.id, 600), true);
        assert.equal(await store.expirePending(old.id, 600), false);
        assert.equal(await store.getLiveFile(old.id), null);
        assert.deepEqual(
          (await store.listDeletedUnpurged(10)).map((r) => [r.id, r.storageUploadId]),
          [[old.id, 'upload-1']],
        );
        assert.equal((await store.getLiveFile(live.id))?.expiresAt, 1000);
      }),
    );

    it(
      "keeps a tus upload's offset behind a lease that only one of many takers gets",
      withStore(async (store, project, another) => {
        const id = newId();
        assert.equal(await store.getTusUpload(id), null);
        await store.insertFile(file(project.id, { id, status: 'pending', partSize: 5 }));
        await store.createTusUpload(id);
        assert.deepEqual(await store.getTusUpload(id), {
          offset: 0,
          leaseOwner: null,
          leaseUntil: null,
        });
        // Takers on two connections at once, as PATCHes on two instances: exactly one wins.
        const second = await another();
        try {
          const lease = (owner: string) => ({ owner, offset: 0, now: 1000, until: 21_000 });
          const taken = await Promise.all([
            store.takeTusLease(id, lease('a')),
            second.takeTusLease(id, lease('b')),
            store.takeTusLease(id, lease('c')),
            second.takeTusLease(id, lease('d')),
          ]);
          assert.equal(taken.filter(Boolean).length, 1, JSON.stringify(taken));
          const owner = (await store.getTusUpload(id))?.leaseOwner as string;
          // Only the holder advances it; a wrong offset is never taken, even once free.
          assert.equal(
            await second.advanceTusUpload(id, { owner: 'x', offset: 9, until: 1 }),
            false,
          );
          assert.equal(await store.advanceTusUpload(id, { owner, offset: 3, until: 30_000 }), true);
          assert.equal(await second.renewTusLease(id, owner, 40_000), true);
          assert.equal(await second.renewTusLease(id, 'x', 50_000), false);
          assert.deepEqual(await store.getTusUpload(id), {
            offset: 3,
            leaseOwner: owner,
            leaseUntil: 40_000,
          });
          // The last record of a PATCH gives the lease up with it.
          assert.equal(await store.advanceTusUpload(id, { owner, offset: 5, until: null }), true);
          assert.equal(await store.renewTusLease(id, owner, 60_000), false);
          assert.deepEqual(await second.getTusUpload(id), {
            offset: 5,
            leaseOwner: null,
            leaseUntil: null,
          });
          const at = (offset: number, now: number) => ({
            owner: 'e',
            offset,
            now,
            until: now + 10,
          });
          assert.equal(await second.takeTusLease(id, at(0, 2000)), false);
          assert.equal(await second.takeTusLease(id, at(5, 2000)), true);
          // A lease that ran out (its instance died) is taken by the next PATCH.
          assert.equal(await store.takeTusLease(id, { ...at(5, 2005), owner: 'f' }), false);
          assert.equal(await store.takeTusLease(id, { ...at(5, 2010), owner: 'f' }), true);
        } finally {
          await second.close();
        }
      }),
    );

    it(
      'forgets a tus state with its pending upload, however the upload stops being pending',
      withStore(async (store, project) => {
        const endings: Record<string, (id: string) => Promise<unknown>> = {
          ready: (id) => store.markReady(id, 'pending', { size: 100 }),
          infected: (id) => store.markInfected(id, 'pending', 500),
          deleted: (id) => store.markDeleted(project.id, id, 500),
          expired: (id) => store.expirePending(id, 500),
        };
        const bystander = file(project.id, { status: 'pending', partSize: 5, expiresAt: 100 });
        await store.insertFile(bystander);
        await store.createTusUpload(bystander.id);
        for (const [ending, end] of Object.entries(endings)) {
          const row = file(project.id, { status: 'pending', partSize: 5, expiresAt: 100 });
          await store.insertFile(row);
          await store.createTusUpload(row.id);
          assert.ok(await store.getTusUpload(row.id), ending);
          await end(row.id);
          assert.equal(await store.getTusUpload(row.id), null, ending);
        }
        assert.ok(await store.getTusUpload(bystander.id), 'the other upload keeps its state');
      }),
    );

    it(
      'keeps the first value of a setting, whoever stores it',
      withStore(async (store) => {
        assert.equal(await store.getSetting('signing-secret'), null);
        assert.equal(await store.initSetting('signing-secret', 'first'), 'first');
        assert.equal(await store.initSetting('signing-secret', 'second'), 'first');
        assert.equal(await store.getSetting('signing-secret'), 'first');
        // Several at once (instances starting together) agree on one value.
        const values = await Promise.all(
          ['a', 'b', 'c', 'd'].map((value) => store.initSetting('race', value)),
        );
        assert.equal(new Set(values).size, 1);
        assert.equal(await store.getSetting('race'), values[0]);
      }),
    );

    it(
      'runs one exclusive task at a time per lock name',
      withStore(async (store) => {
        let release!: () => void;
        const gate = new Promise<void>((resolve) => {
          release = resolve;
        });
        const first = store.runExclusive('sweep', async () => {
          await gate;
          return 1;
        });
        await new Promise((resolve) => setTimeout(resolve, 20));
        assert.deepEqual(await store.runExclusive('sweep', async () => 2), { ran: false });
        assert.deepEqual(await store.runExclusive('other', async () => 3), {
          ran: true,
          value: 3,
        });
        release();
        assert.deepEqual(await first, { ran: true, value: 1 });
        assert.deepEqual(await store.runExclusive('sweep', async () => 4), {
          ran: true,
          value: 4,
        });
        // A task that throws releases the lock too.
        await assert.rejects(
          store.runExclusive('sweep', async () => {
            throw new Error('boom');
          }),
          /boom/,
        );
        assert.deepEqual(await store.runExclusive('sweep', async () => 5), { ran: true, value: 5 });
      }),
    );

    it(
      'picks rows for the sweeper oldest first, ties broken by id, whatever the insert order',
      withStore(async (store, project) => {
        // Ids inserted in descending order, all with the same time: only a tie-break by id
        // puts them back in ascending order.
        const ids = ['f_c', 'f_b', 'f_a']
          .map((id) => `${id}_${newId()}`)
          .sort()
          .reverse();
        const ascending = [...ids].sort();
        for (const id of ids) {
          await store.insertFile(file(project.id, { id, status: 'pending', expiresAt: 100 }));
        }
        assert.deepEqual(
          (await store.listExpiredPending(500, 10)).map((r) => r.id),
          ascending,
        );
        for (const id of ids) await store.markDeleted(project.id, id, 7);
        assert.deepEqual(
          (await store.listDeletedUnpurged(10)).map((r) => r.id),
          ascending,
        );
        const receiving = ids.map((id) => `${id}_r`);
        for (const id of receiving) {
          await store.insertFile(file(project.id, { id, status: 'receiving', expiresAt: 100 }));
        }
        assert.deepEqual(
          (await store.listReceiving(10)).map((r) => r.id),
          [...receiving].sort(),
        );
        assert.deepEqual(
          (await store.listReceiving(2, 500)).map((r) => r.id),
          [...receiving].sort().slice(0, 2),
        );
      }),
    );

    it(
      "creates webhooks up to a cap, the operator's own endpoint under no cap at all",
      withStore(async (store, project) => {
        assert.equal(await store.createWebhook(webhook(project.id, ['file.ready']), 1), true);
        assert.equal(await store.createWebhook(webhook(project.id, ['file.ready']), 1), false);
        // FILEHOST_WEBHOOK_URL's endpoint is stored with the largest cap a number holds
        // (events/configured-webhook.ts): every database must take it.
        const unbounded = webhook(project.id, ['file.ready']);
        assert.equal(await store.createWebhook(unbounded, Number.MAX_SAFE_INTEGER), true);
        assert.equal((await store.listWebhooks(project.id)).length, 2);
      }),
    );

    it(
      'records an event with the change it reports, or neither; no change, no event',
      withStore(async (store, project) => {
        const hook = webhook(project.id, ['file.ready']);
        assert.equal(await store.createWebhook(hook, 10), true);
        const row = file(project.id, { status: 'pending', partSize: 5, expiresAt: 100 });
        await store.insertFile(row);
        const event = draft('file.ready');
        assert.equal(await store.markReady(row.id, 'pending', {}, event), true);
        assert.deepEqual(await store.listEvents(project.id, null, 10), [
          {
            id: event.id,
            projectId: project.id,
            type: 'file.ready',
            createdAt: event.at,
            data: { id: row.id, status: 'ready' },
            deliveries: [{ webhookId: hook.id, status: 'pending', attempts: 0, lastStatus: null }],
          },
        ]);
        // A change whose event cannot be written (its id is taken) rolls back with it.
        const other = file(project.id, { status: 'pending', partSize: 5, expiresAt: 100 });
        await store.insertFile(other);
        await assert.rejects(store.markReady(other.id, 'pending', {}, { ...event }));
        assert.equal((await store.getVisibleFile(project.id, other.id))?.status, 'pending');
        // A change that does not happen records nothing.
        assert.equal(await store.markReady(row.id, 'pending', {}, draft('file.ready')), false);
        assert.equal(await store.markDeleted(project.id, 'f_none', 9, draft('file.deleted')), null);
        assert.equal(await store.expirePending(row.id, 9, draft('upload.expired')), false);
        assert.equal((await store.listEvents(project.id, null, 10)).length, 1);
        // The old row for a delete; a type the endpoint did not ask for has no delivery.
        const deleted = draft('file.deleted', 6);
        assert.ok(await store.markDeleted(project.id, row.id, 9, deleted));
        const [latest] = await store.listEvents(project.id, null, 1);
        assert.deepEqual(
          [latest?.id, latest?.data, latest?.deliveries],
          [deleted.id, { id: row.id, status: 'ready' }, []],
        );
      }),
    );

    it(
      'gives each due delivery to exactly one of two connections claiming at once',
      withStore(async (store, project, another) => {
        const second = await another();
        try {
          await store.createWebhook(webhook(project.id, ['file.ready']), 10);
          for (let n = 0; n < 40; n++) {
            const row = file(project.id, { status: 'pending', partSize: 5, expiresAt: 100 });
            await store.insertFile(row);
            await store.markReady(row.id, 'pending', {}, draft('file.ready', 1000));
          }
          const claims = await Promise.all(
            [store, second, store, second].map((s, n) =>
              s.claimDeliveries(1000, 5000, `i${n}`, 15),
            ),
          );
          const ids = claims.flat().map((claim) => claim.eventId);
          assert.equal(ids.length, 40);
          assert.equal(new Set(ids).size, 40, 'a delivery was claimed twice');
          // Not due before its time, nor while claimed; due again once the claim ran out.
          assert.deepEqual(await store.claimDeliveries(4999, 9000, 'late', 100), []);
          const retaken = await second.claimDeliveries(5001, 9000, 'late', 100);
          assert.equal(retaken.length, 40);
          // Only the live claim records an outcome.
          const stale = claims.flat()[0] as ClaimedDelivery;
          const outcome = {
            status: 'delivered',
            nextAttemptAt: null,
            httpStatus: 204,
            error: null,
          } as const;
          await store.finishAttempt(stale, outcome);
          const live = retaken.find((claim) => claim.eventId === stale.eventId) as ClaimedDelivery;
          const [event] = (await store.listEvents(project.id, null, 100)).filter(
            (e) => e.id === stale.eventId,
          );
          assert.equal(event?.deliveries[0]?.status, 'pending');
          await store.finishAttempt(live, outcome);
          const [done] = (await store.listEvents(project.id, null, 100)).filter(
            (e) => e.id === stale.eventId,
          );
          assert.deepEqual(done?.deliveries[0], {
            webhookId: live.webhookId,
            status: 'delivered',
            attempts: 1,
            lastStatus: 204,
          });
        } finally {
          await second.close();
        }
      }),
    );

    it(
      'lists receiving rows by lease, and extends a lease',
      withStore(async (store, project) => {
        const stale = file(project.id, { status: 'receiving', expiresAt: 100 });
        const live = file(project.id, { status: 'receiving', expiresAt: 100 });
        await store.insertFile(stale);
        await store.insertFile(live);
        await store.extendExpiry(live.id, 1000);
        assert.deepEqual(
          (await store.listReceiving(10, 500)).map((r) => r.id),
          [stale.id],
        );
        assert.deepEqual(
          (await store.listReceiving(10)).map((r) => r.id).sort(),
          [stale.id, live.id].sort(),
        );
      }),
    );

    it(
      'keeps upload tokens by hash with their project, and whether a project requires them',
      withStore(async (store, project) => {
        const token: UploadTokenRow = {
          id: newId('upt_id_'),
          projectId: project.id,
          hash: hashKey('upt_secret'),
          policy: {
            maxFiles: 3,
            maxFileSize: null,
            maxBytes: 9_000_000_000,
            types: ['image/*'],
            metadata: { user: 'u1' },
            visibility: 'private',
            deleteAfter: 60,
          },
          expiresAt: 1_800_000_000_000,
          createdAt: 1_700_000_000_000,
        };
        await store.createUploadToken(token);
        assert.deepEqual(await store.findUploadTokenByHash(token.hash), { token, project });
        assert.deepEqual(await store.getUploadToken(token.id), token);
        assert.equal(await store.findUploadTokenByHash(hashKey('upt_other')), null);
        assert.equal(await store.getUploadToken('upt_id_missing'), null);
        const required = await store.updateProject(project.id, { requireUploadToken: true });
        assert.equal(required?.requireUploadToken, true);
        assert.equal(
          (await store.findUploadTokenByHash(token.hash))?.project.requireUploadToken,
          true,
        );
        // A patch without it leaves it.
        assert.equal(
          (await store.updateProject(project.id, { name: 'R' }))?.requireUploadToken,
          true,
        );
        assert.equal(
          (await store.updateProject(project.id, { requireUploadToken: false }))
            ?.requireUploadToken,
          false,
        );
      }),
    );

    it(
      "counts a token's files at insert, exactly under concurrency, from several connections",
      withStore(async (store, project, another) => {
        const second = await another();
        try {
          const reservation: Reservation = {
            quota: { storageBytes: null, pendingUploads: null },
            now: 1_000,
            token: { id: 'upt_id_a', maxFiles: 5, maxBytes: 600 },
          };
          const pending = (size = 100) =>
            file(project.id, { status: 'pending', size, expiresAt: 5_000, tokenId: 'upt_id_a' });
          const outcomes = await Promise.allSettled(
            Array.from({ length: 20 }, (_, index) =>
              (index % 2 ? second : store).insertFiles(project.id, [pending()], reservation),
            ),
          );
          assert.equal(outcomes.filter((o) => o.status === 'fulfilled').length, 5);
          for (const outcome of outcomes) {
            if (outcome.status === 'rejected') {
              assert.ok(outcome.reason instanceof TokenExhaustedError);
              assert.equal(outcome.reason.limit, 'files');
            }
          }
          assert.deepEqual(await store.tokenUsage('upt_id_a', 1_000), { files: 5, bytes: 500 });
          // maxBytes: a batch over it is refused whole, with the first row over.
          await assert.rejects(
            store.insertFiles(project.id, [pending(50), pending(100)], {
              ...reservation,
              token: { id: 'upt_id_a', maxFiles: null, maxBytes: 600 },
            }),
            (error: unknown) =>
              error instanceof TokenExhaustedError && error.limit === 'bytes' && error.index === 1,
          );
          assert.deepEqual(await store.tokenUsage('upt_id_a', 1_000), { files: 5, bytes: 500 });
        } finally {
          await second.close();
        }
      }),
    );

    it(
      "gives a token's room back when an upload is aborted or expires, not when a ready file is deleted",
      withStore(async (store, project) => {
        const tokenId = 'upt_id_b';
        const ready = file(project.id, { size: 10, tokenId });
        const aborted = file(project.id, {
          status: 'pending',
          size: 20,
          expiresAt: 9_000,
          tokenId,
        });
        const expiring = file(project.id, {
          status: 'pending',
          size: 40,
          expiresAt: 2_000,
          tokenId,
        });
        for (const row of [ready, aborted, expiring]) await store.insertFile(row);
        assert.deepEqual(await store.tokenUsage(tokenId, 1_000), { files: 3, bytes: 70 });
        // Past its expiresAt a pending upload holds nothing, before any sweep.
        assert.deepEqual(await store.tokenUsage(tokenId, 2_000), { files: 2, bytes: 30 });
        assert.ok(await store.markDeleted(project.id, aborted.id, 1_500));
        assert.deepEqual(await store.tokenUsage(tokenId, 1_000), { files: 2, bytes: 50 });
        assert.ok(await store.expirePending(expiring.id, 1_500));
        assert.deepEqual(await store.tokenUsage(tokenId, 1_000), { files: 1, bytes: 10 });
        // A file the token uploaded stays one of its files once deleted.
        assert.ok(await store.markDeleted(project.id, ready.id, 1_500));
        assert.deepEqual(await store.tokenUsage(tokenId, 1_000), { files: 1, bytes: 10 });
      }),
    );

    it(
      'caps anonymous rows per address and in all; expired pending rows hold nothing',
      withStore(async (store, project) => {
        const reservation = (address: string): Reservation => ({
          quota: { storageBytes: 1000, pendingUploads: 10 },
          now: 1_000,
          anonymous: {
            address,
            perAddress: { uploads: 3, bytes: 300, windowMs: 86_400_000 },
            share: { storageBytes: 500, pendingUploads: 6 },
          },
        });
        const anon = (address: string, size: number, expiresAt = 5_000) =>
          file(project.id, { status: 'pending', size, expiresAt, anonymousAddress: address });
        const refusal = (limit: string) => (error: unknown) =>
          error instanceof QuotaExceededError && error.limit === limit;
        await store.insertFiles(project.id, [anon('a', 100), anon('a', 100)], reservation('a'));
        await assert.rejects(
          store.insertFiles(project.id, [anon('a', 150)], reservation('a')),
          refusal('address_bytes'),
        );
        await store.insertFiles(project.id, [anon('a', 50)], reservation('a'));
        await assert.rejects(
          store.insertFiles(project.id, [anon('a', 1)], reservation('a')),
          refusal('address_uploads'),
        );
        await store.insertFiles(project.id, [anon('b', 200)], reservation('b'));
        await assert.rejects(
          store.insertFiles(project.id, [anon('c', 1), anon('c', 100)], reservation('c')),
          (error: unknown) =>
            refusal('anonymous_storage')(error) && (error as QuotaExceededError).index === 1,
        );
        await store.insertFiles(project.id, [anon('c', 50)], reservation('c'));
        await assert.rejects(
          store.insertFiles(project.id, [anon('d', 0), anon('d', 0)], reservation('d')),
          refusal('anonymous_pending_uploads'),
        );
        // The backend's rows only meet the project's own quota.
        const own = { quota: { storageBytes: 1000, pendingUploads: 10 }, now: 1_000 };
        await store.insertFiles(project.id, [file(project.id, { size: 400 })], own);
        await assert.rejects(
          store.insertFiles(project.id, [file(project.id, { size: 101 })], own),
          refusal('storage'),
        );
        assert.deepEqual(await store.usage(project.id, 1_000), {
          storedBytes: 400,
          files: 1,
          pendingBytes: 500,
          pendingUploads: 5,
          anonymousBytes: 500,
          anonymousUploads: 5,
          variantBytes: 0,
        });
        // At 5_000 every pending row has expired: room for all of them again.
        assert.deepEqual(await store.usage(project.id, 5_000), {
          storedBytes: 400,
          files: 1,
          pendingBytes: 0,
          pendingUploads: 0,
          anonymousBytes: 0,
          anonymousUploads: 0,
          variantBytes: 0,
        });
        await store.insertFiles(project.id, [anon('a', 300, 9_000)], {
          ...reservation('a'),
          now: 5_000,
        });
      }),
    );

    it(
      'counts anonymous files once ready in the share for good, and in their address for its window',
      withStore(async (store, project) => {
        const hour = 3_600_000;
        const window = 24 * hour;
        const reservation = (address: string, now: number): Reservation => ({
          quota: { storageBytes: 1000, pendingUploads: null },
          now,
          anonymous: {
            address,
            perAddress: { uploads: 10, bytes: 300, windowMs: window },
            share: { storageBytes: 500, pendingUploads: null },
          },
        });
        const anon = (address: string, size: number, createdAt: number) =>
          file(project.id, {
            status: 'receiving',
            size,
            createdAt,
            expiresAt: createdAt + 60_000,
            anonymousAddress: address,
          });
        const refusal = (limit: string) => (error: unknown) =>
          error instanceof QuotaExceededError && error.limit === limit;
        const start = 10 * window;
        const first = anon('a', 300, start);
        await store.insertFiles(project.id, [first], reservation('a', start));
        assert.ok(await store.markReady(first.id, 'receiving', {}));
        assert.equal(
          (await store.getVisibleFile(project.id, first.id))?.anonymousAddress,
          'a',
          'a ready file stays anonymous',
        );
        // Ready, it still fills its address's allowance until 24 hours after it started...
        await assert.rejects(
          store.insertFiles(project.id, [anon('a', 1, start + window - 1)], {
            ...reservation('a', start + window - 1),
          }),
          refusal('address_bytes'),
        );
        // ... then no longer; but it holds its part of the share for as long as it is kept.
        const later = start + window + 1;
        const second = anon('a', 200, later);
        await store.insertFiles(project.id, [second], reservation('a', later));
        assert.ok(await store.markReady(second.id, 'receiving', {}));
        await assert.rejects(
          store.insertFiles(project.id, [anon('b', 1, later)], reservation('b', later)),
          (error: unknown) =>
            refusal('anonymous_storage')(error) && (error as QuotaExceededError).bound.used === 500,
        );
        assert.deepEqual(
          [
            (await store.usage(project.id, later)).anonymousBytes,
            (await store.usage(project.id, later)).storedBytes,
          ],
          [500, 500],
        );
        // The owner's files are not anonymous: they fill the rest of the quota, never the share.
        const own = { quota: { storageBytes: 1000, pendingUploads: null }, now: later };
        await store.insertFiles(project.id, [file(project.id, { size: 500 })], own);
        assert.equal((await store.usage(project.id, later)).anonymousBytes, 500);
        // Deleting an anonymous file gives its room back.
        assert.ok(await store.markDeleted(project.id, first.id, later));
        assert.equal((await store.usage(project.id, later)).anonymousBytes, 200);
        await store.insertFiles(project.id, [anon('b', 250, later)], reservation('b', later));
        await store.insertFiles(project.id, [file(project.id, { size: 50 })], own);
        await assert.rejects(
          store.insertFiles(project.id, [anon('c', 1, later)], reservation('c', later)),
          refusal('storage'),
          'the project quota still bounds anonymous files',
        );
      }),
    );

    it(
      "keeps a project's anonymous share, and puts it back to the default with null",
      withStore(async (store, project) => {
        assert.equal(project.anonymousShare, null);
        assert.equal(
          (await store.updateProject(project.id, { anonymousShare: 0.25 }))?.anonymousShare,
          0.25,
        );
        assert.equal((await store.getProject(project.id))?.anonymousShare, 0.25);
        assert.equal(
          (await store.updateProject(project.id, { name: 'renamed' }))?.anonymousShare,
          0.25,
          'a patch without it keeps it',
        );
        assert.equal(
          (await store.updateProject(project.id, { anonymousShare: null }))?.anonymousShare,
          null,
        );
      }),
    );

    it(
      'lists ready files whose deleteAt has come, soonest first',
      withStore(async (store, project) => {
        const later = file(project.id, { deleteAt: 3_000 });
        const sooner = file(project.id, { deleteAt: 2_000 });
        const never = file(project.id);
        const pending = file(project.id, { status: 'pending', deleteAt: 1_000, expiresAt: 9_000 });
        for (const row of [later, sooner, never, pending]) await store.insertFile(row);
        assert.deepEqual(await store.listDueForDeletion(1_999, 10), []);
        assert.deepEqual(
          (await store.listDueForDeletion(3_000, 10)).map((row) => row.id),
          [sooner.id, later.id],
        );
        assert.equal((await store.getVisibleFile(project.id, later.id))?.deleteAt, 3_000);
        assert.ok(await store.markDeleted(project.id, sooner.id, 3_000));
        assert.deepEqual(
          (await store.listDueForDeletion(3_000, 10)).map((row) => row.id),
          [later.id],
        );
      }),
    );
  });
}
