import { randomBytes } from 'node:crypto';
import type {
  AnonymousUsage,
  ApiKeyRow,
  AttemptOutcome,
  ClaimedDelivery,
  EventDraft,
  EventRow,
  FileRow,
  ImportState,
  ListPosition,
  MetadataStore,
  Project,
  ProjectPatch,
  ProjectUsage,
  ReadyFields,
  RecordedVariant,
  Reservation,
  TokenUsage,
  TusUploadState,
  UploadTokenRow,
  VariantRow,
  WebhookRow,
} from '../metadata-store.js';
import {
  type AnonymousUsageRecord,
  type ClaimedTableRecord,
  type DeliveryTableRecord,
  type EventTableRecord,
  eventsColumn,
  type FileRecord,
  fileValues,
  type KeyRecord,
  type KeyWithProjectRecord,
  type ProjectRecord,
  type TokenUsageRecord,
  toAnonymousUsage,
  toClaimed,
  toEvent,
  toFile,
  toKey,
  toKeyWithProject,
  toProject,
  toTokenUsage,
  toUploadToken,
  toUploadTokenWithProject,
  toUsage,
  toWebhook,
  type UploadTokenRecord,
  type UploadTokenWithProjectRecord,
  type UsageRecord,
  type WebhookTableRecord,
} from './records.js';
import * as SQL from './statements.js';

export type SqlValue = string | number | null;

/**
 * How a statement is run. `grouped`: a frequent write (on an upload's path: a new row, its
 * storage id, ready; a delivery claimed or its outcome), which SQLite commits together
 * with the others of the same turn of the event loop, one fsync for many; everything else
 * runs on its own.
 */
export interface StatementOptions {
  grouped?: boolean;
  /**
   * A write whose loss in a crash harms nothing (a tus write lease: it means something only
   * to the PATCHes of live instances), so a store may commit it without waiting for the
   * disk. It is never seen before it is committed; a durable write after it keeps it too.
   */
  volatile?: boolean;
}

/** One statement of a change of a file (`changeFile`). */
export interface Step {
  sql: string;
  values: readonly SqlValue[];
  /** Answers the file row the change is about; none: no such row, and the change stops. */
  yieldsRow?: boolean;
}

/**
 * The metadata store over SQL, once for both databases: every method is one statement of
 * `statements.ts`, run through the two primitives a store implements for its driver.
 * What is really one database's (transactions and locks, the old row of a delete,
 * exclusive background tasks, closing) stays abstract.
 */
export abstract class SqlMetadataStore implements MetadataStore {
  /** Each database proves a write could go its own way (`MetadataStore.probe`). */
  abstract probe(): Promise<void>;
  /** The rows `sql` answers, with `values` bound to its `?` in order. */
  protected abstract rows<R>(
    sql: string,
    values: readonly SqlValue[],
    options?: StatementOptions,
  ): Promise<R[]>;
  /** How many rows `sql` changed. */
  protected abstract changes(
    sql: string,
    values: readonly SqlValue[],
    options?: StatementOptions,
  ): Promise<number>;

  /**
   * Runs `steps` in one transaction. The row of the step that yields one is the change's
   * row; when that step finds none, nothing after it runs and the answer is null. With
   * `event`, the event and its deliveries (`eventSteps`) are written in the same
   * transaction, after the change: both commit, or neither.
   */
  protected abstract changeFile(
    steps: Step[],
    event: EventDraft | undefined,
    options?: StatementOptions,
  ): Promise<FileRow | null>;
  /**
   * Runs `record` (how many rows it changed), then `evict` (the rows it answers) again
   * while it answers a whole `SQL.EVICTION_BATCH`, in one transaction that takes its turn with every other such transaction for `projectId`, from
   * any connection: the project's variant budget is checked against what the turn before
   * committed.
   */
  protected abstract variantTurn(
    projectId: string,
    record: Step,
    evict: Step,
  ): Promise<{ recorded: number; evicted: Array<{ file_id: string; name: string }> }>;
  /** The steps of `markDeleted`, which must yield the row as it was. */
  protected abstract markDeletedSteps(projectId: string, id: string, at: number): Step[];
  /** PostgreSQL's `FOR UPDATE SKIP LOCKED` for claiming deliveries; nothing on SQLite. */
  protected readonly claimLock: string = '';

  abstract close(): Promise<void>;
  abstract insertFiles(
    projectId: string,
    files: FileRow[],
    reservation: Reservation,
  ): Promise<void>;
  abstract runExclusive<T>(
    name: string,
    task: () => Promise<T>,
  ): Promise<{ ran: true; value: T } | { ran: false }>;

  async createProject(project: Project): Promise<void> {
    await this.changes(SQL.PROJECT_INSERT, [
      project.id,
      project.name,
      project.plan,
      JSON.stringify(project.allowedOrigins),
      project.allowedTypes ? JSON.stringify(project.allowedTypes) : null,
      project.storageQuota,
      project.maxPendingUploads,
      project.createdAt,
      project.requireUploadToken ? 1 : 0,
      project.anonymousShare,
    ]);
  }

  async updateProject(id: string, patch: ProjectPatch): Promise<Project | null> {
    const given = (value: unknown) => (value === undefined ? 0 : 1);
    const [row] = await this.rows<ProjectRecord>(SQL.PROJECT_UPDATE, [
      patch.name ?? null,
      patch.plan ?? null,
      patch.allowedOrigins ? JSON.stringify(patch.allowedOrigins) : null,
      given(patch.allowedTypes),
      patch.allowedTypes ? JSON.stringify(patch.allowedTypes) : null,
      given(patch.storageQuota),
      patch.storageQuota ?? null,
      given(patch.maxPendingUploads),
      patch.maxPendingUploads ?? null,
      patch.requireUploadToken === undefined ? null : patch.requireUploadToken ? 1 : 0,
      given(patch.anonymousShare),
      patch.anonymousShare ?? null,
      id,
    ]);
    return row ? toProject(row) : null;
  }

  async getProject(id: string): Promise<Project | null> {
    const [row] = await this.rows<ProjectRecord>(SQL.PROJECT_BY_ID, [id]);
    return row ? toProject(row) : null;
  }

  async listProjects(): Promise<Project[]> {
    return (await this.rows<ProjectRecord>(SQL.PROJECTS, [])).map(toProject);
  }

  async addKey(key: ApiKeyRow): Promise<void> {
    await this.changes(SQL.KEY_INSERT, [
      key.id,
      key.projectId,
      key.kind,
      key.hash,
      key.hint,
      key.createdAt,
      key.revokedAt,
    ]);
  }

  async findKeyByHash(hash: string): Promise<{ key: ApiKeyRow; project: Project } | null> {
    const [row] = await this.rows<KeyWithProjectRecord>(SQL.LIVE_KEY_BY_HASH, [hash]);
    return row ? toKeyWithProject(row) : null;
  }

  async listKeys(projectId: string): Promise<ApiKeyRow[]> {
    return (await this.rows<KeyRecord>(SQL.KEYS_OF_PROJECT, [projectId])).map(toKey);
  }

  async revokeKey(id: string, at: number): Promise<boolean> {
    return (await this.changes(SQL.KEY_REVOKE, [at, id])) > 0;
  }

  async createUploadToken(token: UploadTokenRow): Promise<void> {
    await this.changes(SQL.UPLOAD_TOKEN_INSERT, [
      token.id,
      token.projectId,
      token.hash,
      JSON.stringify(token.policy),
      token.expiresAt,
      token.createdAt,
    ]);
  }

  async findUploadTokenByHash(
    hash: string,
  ): Promise<{ token: UploadTokenRow; project: Project } | null> {
    const [row] = await this.rows<UploadTokenWithProjectRecord>(SQL.UPLOAD_TOKEN_BY_HASH, [hash]);
    return row ? toUploadTokenWithProject(row) : null;
  }

  async getUploadToken(id: string): Promise<UploadTokenRow | null> {
    const [row] = await this.rows<UploadTokenRecord>(SQL.UPLOAD_TOKEN_BY_ID, [id]);
    return row ? toUploadToken(row) : null;
  }

  async tokenUsage(tokenId: string, now: number): Promise<TokenUsage> {
    const [row] = await this.rows<TokenUsageRecord>(SQL.TOKEN_USAGE, [tokenId, now]);
    return toTokenUsage(row);
  }

  async insertFile(file: FileRow): Promise<void> {
    await this.changes(SQL.fileInsert(1), fileValues(file), { grouped: true });
  }

  async usage(projectId: string, now: number): Promise<ProjectUsage> {
    const [row] = await this.rows<UsageRecord>(SQL.PROJECT_USAGE, [projectId, now]);
    const [variants] = await this.rows<{ variant_bytes: number | string }>(
      SQL.PROJECT_VARIANT_BYTES,
      [projectId],
    );
    return { ...toUsage(row), variantBytes: Number(variants?.variant_bytes ?? 0) };
  }

  async addressUsage(
    projectId: string,
    address: string,
    now: number,
    windowMs: number,
  ): Promise<AnonymousUsage> {
    const [row] = await this.rows<AnonymousUsageRecord>(
      SQL.ADDRESS_USAGE,
      SQL.addressUsageValues(projectId, address, now, windowMs),
    );
    return toAnonymousUsage(row);
  }

  async getVariant(fileId: string, name: string): Promise<VariantRow | null> {
    const [row] = await this.rows<{
      name: string;
      size: number | string;
      served_at: number | string;
    }>(SQL.VARIANT, [fileId, name]);
    return row
      ? { fileId, name: row.name, size: Number(row.size), servedAt: Number(row.served_at) }
      : null;
  }

  async recordVariant(
    variant: VariantRow,
    projectId: string,
    budgetBytes: number,
  ): Promise<RecordedVariant> {
    const { fileId, name } = variant;
    const { recorded, evicted } = await this.variantTurn(
      projectId,
      { sql: SQL.VARIANT_RECORD, values: [name, variant.size, variant.servedAt, fileId] },
      {
        sql: SQL.VARIANTS_OVER_BUDGET,
        values: [projectId, fileId, name, SQL.EVICTION_BATCH, projectId, budgetBytes],
      },
    );
    return {
      recorded: recorded > 0,
      evicted: evicted.map((row) => ({ fileId: row.file_id, name: row.name })),
    };
  }

  async touchVariant(fileId: string, name: string, at: number, before: number): Promise<void> {
    await this.changes(SQL.VARIANT_TOUCH, [at, fileId, name, before], { grouped: true });
  }

  async variantsBeyond(fileId: string, keep: number): Promise<string[]> {
    // A file never has many more than `keep`: one page of them is every one there is.
    const rows = await this.rows<{ name: string }>(SQL.VARIANTS_BEYOND, [fileId, 1000, keep]);
    return rows.map((row) => row.name);
  }

  async removeVariant(fileId: string, name: string): Promise<boolean> {
    return (await this.changes(SQL.VARIANT_REMOVE, [fileId, name])) > 0;
  }

  async removeVariants(fileId: string): Promise<void> {
    await this.changes(SQL.VARIANTS_REMOVE, [fileId]);
  }

  async getVisibleFile(projectId: string, id: string): Promise<FileRow | null> {
    return this.#file(SQL.VISIBLE_FILE, [id, projectId]);
  }

  async getLiveFile(id: string): Promise<FileRow | null> {
    return this.#file(SQL.LIVE_FILE, [id]);
  }

  async listFiles(
    projectId: string,
    after: ListPosition | null,
    limit: number,
  ): Promise<FileRow[]> {
    return after
      ? this.#files(SQL.LIST_AFTER_POSITION, [projectId, after.createdAt, after.id, limit])
      : this.#files(SQL.LIST_FIRST_PAGE, [projectId, limit]);
  }

  async markReady(
    id: string,
    from: 'receiving' | 'pending',
    fields: ReadyFields,
    event?: EventDraft,
  ): Promise<boolean> {
    const step: Step = {
      sql: SQL.FILE_MARK_READY,
      yieldsRow: true,
      values: [
        fields.name ?? null,
        fields.mime ?? null,
        fields.size ?? null,
        fields.metadata ? JSON.stringify(fields.metadata) : null,
        fields.createdAt ?? null,
        fields.completedParts ? JSON.stringify(fields.completedParts) : null,
        fields.visibility ?? null,
        fields.scannedAt ?? null,
        fields.placeholder ?? null,
        id,
        from,
      ],
    };
    return (await this.changeFile([step], event, { grouped: true })) !== null;
  }

  async markInfected(
    id: string,
    from: 'receiving' | 'pending',
    at: number,
    event?: EventDraft,
  ): Promise<boolean> {
    const step: Step = { sql: SQL.FILE_MARK_INFECTED, yieldsRow: true, values: [at, id, from] };
    return (await this.changeFile([step], event)) !== null;
  }

  markDeleted(
    projectId: string,
    id: string,
    at: number,
    event?: EventDraft,
  ): Promise<FileRow | null> {
    return this.changeFile(this.markDeletedSteps(projectId, id, at), event);
  }

  /** The event row and its deliveries, for the project of the changed `row`. */
  protected eventSteps(event: EventDraft, row: FileRow): Step[] {
    return [
      {
        sql: SQL.EVENT_INSERT,
        values: [event.id, row.projectId, event.type, event.at, JSON.stringify(event.data(row))],
      },
      {
        sql: SQL.DELIVERIES_FAN_OUT,
        values: [event.id, event.at, row.projectId, `%,${event.type},%`],
      },
    ];
  }

  async discardReceiving(id: string): Promise<void> {
    await this.changes(SQL.RECEIVING_DISCARD, [id]);
  }

  async extendExpiry(id: string, expiresAt: number): Promise<void> {
    await this.changes(SQL.EXPIRY_EXTEND, [expiresAt, id]);
  }

  async setStorageUploadId(id: string, storageUploadId: string): Promise<void> {
    await this.changes(SQL.STORAGE_UPLOAD_ID_SET, [storageUploadId, id], { grouped: true });
  }

  async createTusUpload(id: string): Promise<void> {
    await this.changes(SQL.TUS_INSERT, [id], { grouped: true });
  }

  async getTusUpload(id: string): Promise<TusUploadState | null> {
    const [found] = await this.rows<{
      upload_offset: number | string;
      lease_owner: string | null;
      lease_until: number | string | null;
    }>(SQL.TUS_GET, [id]);
    if (!found) return null;
    return {
      offset: Number(found.upload_offset),
      leaseOwner: found.lease_owner,
      leaseUntil: found.lease_until === null ? null : Number(found.lease_until),
    };
  }

  async takeTusLease(
    id: string,
    lease: { owner: string; offset: number; now: number; until: number },
  ): Promise<boolean> {
    const { owner, offset, now, until } = lease;
    return (
      (await this.changes(SQL.TUS_LEASE_TAKE, [owner, until, id, offset, now], {
        volatile: true,
      })) === 1
    );
  }

  async advanceTusUpload(
    id: string,
    lease: { owner: string; offset: number; until: number | null },
  ): Promise<boolean> {
    const { owner, offset, until } = lease;
    const changed =
      until === null
        ? await this.changes(SQL.TUS_ADVANCE_RELEASE, [offset, id, owner])
        : await this.changes(SQL.TUS_ADVANCE, [offset, until, id, owner]);
    return changed === 1;
  }

  async renewTusLease(id: string, owner: string, until: number): Promise<boolean> {
    return (await this.changes(SQL.TUS_LEASE_RENEW, [until, id, owner], { volatile: true })) === 1;
  }

  async releaseTusLease(id: string, owner: string): Promise<void> {
    await this.changes(SQL.TUS_LEASE_RELEASE, [id, owner], { volatile: true });
  }

  async listDeletedUnpurged(limit: number): Promise<FileRow[]> {
    return this.#files(SQL.DELETED_UNPURGED, [limit]);
  }

  async listReceiving(limit: number, leaseExpiredBefore?: number): Promise<FileRow[]> {
    const before = leaseExpiredBefore ?? null;
    return this.#files(SQL.RECEIVING, [before, before, limit]);
  }

  async markPurged(id: string): Promise<void> {
    await this.changes(SQL.PURGED_MARK, [id]);
  }

  async listImagesWithoutPlaceholder(afterId: string | null, limit: number): Promise<FileRow[]> {
    return this.#files(SQL.IMAGES_WITHOUT_PLACEHOLDER, [afterId ?? '', limit]);
  }

  async setPlaceholder(id: string, placeholder: string): Promise<boolean> {
    return (await this.changes(SQL.PLACEHOLDER_SET, [placeholder, id])) > 0;
  }

  async listDueForDeletion(now: number, limit: number): Promise<FileRow[]> {
    return this.#files(SQL.DUE_FOR_DELETION, [now, limit]);
  }

  async recordImportProgress(id: string, state: ImportState, leaseUntil: number): Promise<boolean> {
    const changed = await this.changes(
      SQL.IMPORT_PROGRESS,
      [JSON.stringify(state), leaseUntil, id],
      {
        grouped: true,
      },
    );
    return changed > 0;
  }

  failImport(
    id: string,
    at: number,
    state: ImportState,
    event?: EventDraft,
  ): Promise<FileRow | null> {
    const step: Step = {
      sql: SQL.IMPORT_FAIL,
      values: [at, JSON.stringify(state), id],
      yieldsRow: true,
    };
    return this.changeFile([step], event);
  }

  async getFailedImport(projectId: string, id: string, since: number): Promise<FileRow | null> {
    const row = await this.#file(SQL.FAILED_IMPORT, [id, projectId, since]);
    return row?.importState?.error ? row : null;
  }

  async listAbandonedImports(before: number, limit: number): Promise<FileRow[]> {
    return this.#files(SQL.ABANDONED_IMPORTS, [before, limit]);
  }

  async listExpiredPending(before: number, limit: number): Promise<FileRow[]> {
    return this.#files(SQL.EXPIRED_PENDING, [before, limit]);
  }

  async expirePending(id: string, at: number, event?: EventDraft): Promise<boolean> {
    const step: Step = { sql: SQL.PENDING_EXPIRE, values: [at, id], yieldsRow: true };
    return (await this.changeFile([step], event)) !== null;
  }

  async createWebhook(webhook: WebhookRow, max: number): Promise<boolean> {
    const changed = await this.changes(SQL.WEBHOOK_INSERT, [
      webhook.id,
      webhook.projectId,
      webhook.url,
      eventsColumn(webhook.events),
      webhook.secret,
      webhook.createdAt,
      webhook.projectId,
      max,
    ]);
    return changed > 0;
  }

  async listWebhooks(projectId: string): Promise<WebhookRow[]> {
    const rows = await this.rows<WebhookTableRecord>(SQL.WEBHOOKS_OF_PROJECT, [projectId]);
    return rows.map(toWebhook);
  }

  async deleteWebhook(projectId: string, id: string): Promise<boolean> {
    return (await this.changes(SQL.WEBHOOK_DELETE, [id, projectId])) > 0;
  }

  async listEvents(
    projectId: string,
    after: ListPosition | null,
    limit: number,
  ): Promise<EventRow[]> {
    const events = after
      ? await this.rows<EventTableRecord>(SQL.EVENTS_AFTER_POSITION, [
          projectId,
          after.createdAt,
          after.id,
          limit,
        ])
      : await this.rows<EventTableRecord>(SQL.EVENTS_FIRST_PAGE, [projectId, limit]);
    if (events.length === 0) return [];
    const ids = events.map((event) => event.id);
    const deliveries = await this.rows<DeliveryTableRecord>(SQL.deliveriesOf(ids.length), ids);
    return events.map((event) => toEvent(event, deliveries));
  }

  async redeliverEvent(projectId: string, id: string, at: number): Promise<boolean> {
    const [found] = await this.rows<{ id: string }>(SQL.EVENT_OF_PROJECT, [id, projectId]);
    if (!found) return false;
    await this.changes(SQL.DELIVERIES_RESET, [at, id]);
    await this.changes(SQL.DELIVERIES_MISSING, [id, at, id, id]);
    return true;
  }

  async claimDeliveries(
    now: number,
    leaseUntil: number,
    owner: string,
    limit: number,
  ): Promise<ClaimedDelivery[]> {
    // A token of this claim alone: what it claimed is read back by it, not by the lease's time.
    const claim = `${owner}:${randomBytes(9).toString('base64url')}`;
    const claimed = await this.changes(
      SQL.deliveriesClaim(this.claimLock),
      [leaseUntil, claim, now, now, limit],
      { grouped: true },
    );
    if (claimed === 0) return [];
    const rows = await this.rows<ClaimedTableRecord>(SQL.DELIVERIES_CLAIMED, [claim]);
    return rows.map((row) => ({ ...toClaimed(row), claim }));
  }

  async outboxBacklog(): Promise<{ pending: number; oldestDueAt: number | null }> {
    const [row] = await this.rows<{ pending: number | string; oldest: number | string | null }>(
      SQL.OUTBOX_BACKLOG,
      [],
    );
    return {
      pending: Number(row?.pending ?? 0),
      oldestDueAt: row?.oldest == null ? null : Number(row.oldest),
    };
  }

  async finishAttempt(delivery: ClaimedDelivery, outcome: AttemptOutcome): Promise<void> {
    await this.changes(
      SQL.ATTEMPT_FINISH,
      [
        outcome.status,
        outcome.nextAttemptAt,
        outcome.httpStatus,
        outcome.error,
        delivery.eventId,
        delivery.webhookId,
        delivery.claim,
      ],
      { grouped: true },
    );
  }

  async removeEventsBefore(before: number, limit: number): Promise<number> {
    return this.changes(SQL.EVENTS_EXPIRE, [before, limit]);
  }

  async initSetting(name: string, value: string): Promise<string> {
    const [inserted] = await this.rows<{ value: string }>(SQL.SETTING_INIT, [name, value]);
    if (inserted) return inserted.value;
    const stored = await this.getSetting(name);
    if (stored === null) throw new Error(`Setting ${name} conflicted but cannot be read`);
    return stored;
  }

  async getSetting(name: string): Promise<string | null> {
    const [row] = await this.rows<{ value: string }>(SQL.SETTING, [name]);
    return row?.value ?? null;
  }

  async #file(sql: string, values: SqlValue[]): Promise<FileRow | null> {
    const [row] = await this.rows<FileRecord>(sql, values);
    return row ? toFile(row) : null;
  }

  async #files(sql: string, values: SqlValue[]): Promise<FileRow[]> {
    return (await this.rows<FileRecord>(sql, values)).map(toFile);
  }
}
