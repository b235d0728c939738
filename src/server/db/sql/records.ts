import type { PartChecksum } from '../../../api/checksum.js';
import type { DeliveryStatus, EventType } from '../../../api/events.js';
import type { Plan } from '../../../api/limits.js';
import type { FileMetadata, UploadTokenPolicy, Visibility } from '../../../api/types.js';
import type { KeyKind } from '../../ground/secrets.js';
import type {
  AnonymousUsage,
  ApiKeyRow,
  ClaimedDelivery,
  CompletedPart,
  EventRow,
  FileRow,
  FileRowStatus,
  ImportState,
  Project,
  TokenUsage,
  UploadTokenRow,
  UsageCounts,
  WebhookRow,
} from '../metadata-store.js';

/**
 * The tables' columns as both SQL stores read them. A JSON column arrives as text from
 * SQLite and as a value from PostgreSQL; `fromJson` takes either.
 */
export interface ProjectRecord {
  id: string;
  name: string;
  plan: Plan;
  allowed_origins: JsonColumn<string[]>;
  allowed_types: JsonColumn<string[]> | null;
  storage_quota: number | null;
  max_pending_uploads: number | null;
  /** 0 or 1 (an integer in both databases). */
  require_upload_token: number;
  anonymous_share: number | null;
  created_at: number;
}

export interface KeyRecord {
  id: string;
  project_id: string;
  kind: KeyKind;
  hash: string;
  hint: string;
  created_at: number;
  revoked_at: number | null;
}

export interface FileRecord {
  id: string;
  project_id: string;
  name: string;
  mime: string;
  size: number;
  created_at: number;
  status: FileRowStatus;
  metadata: JsonColumn<FileMetadata>;
  part_size: number | null;
  storage_upload_id: string | null;
  expires_at: number | null;
  deleted_at: number | null;
  checksum: PartChecksum | null;
  upload_token_hash: string | null;
  completed_parts: JsonColumn<CompletedPart[]> | null;
  visibility: Visibility;
  delete_at: number | null;
  token_id: string | null;
  anonymous_address: string | null;
  scanned_at: number | string | null;
  import_state: JsonColumn<ImportState> | null;
  placeholder: string | null;
}

/** Every column of `files` that a `FileRow` is made of, in the stores' insert order. */
export const FILE_COLUMNS =
  'id, project_id, name, mime, size, created_at, status, metadata, part_size, storage_upload_id, expires_at, deleted_at, checksum, upload_token_hash, completed_parts, visibility, delete_at, token_id, anonymous_address, scanned_at, import_state, placeholder';

/** A row's values in `FILE_COLUMNS` order, for an insert (metadata as JSON text). */
export function fileValues(file: FileRow): (string | number | null)[] {
  return [
    file.id,
    file.projectId,
    file.name,
    file.mime,
    file.size,
    file.createdAt,
    file.status,
    JSON.stringify(file.metadata),
    file.partSize,
    file.storageUploadId,
    file.expiresAt,
    file.deletedAt,
    file.checksum,
    file.uploadTokenHash,
    file.completedParts ? JSON.stringify(file.completedParts) : null,
    file.visibility,
    file.deleteAt,
    file.tokenId,
    file.anonymousAddress,
    file.scannedAt ?? null,
    file.importState ? JSON.stringify(file.importState) : null,
    file.placeholder ?? null,
  ];
}

/** A JSON column as the driver gives it: text (SQLite) or already parsed (PostgreSQL). */
export type JsonColumn<T> = T | string;

/**
 * The value of a JSON column. Every JSON column holds an object or an array, never a bare
 * string, so text is always the encoded form.
 */
export function fromJson<T>(column: JsonColumn<T>): T {
  return typeof column === 'string' ? (JSON.parse(column) as T) : column;
}

/** A live key row joined with its project's columns (`LIVE_KEY_BY_HASH`). */
export interface KeyWithProjectRecord extends KeyRecord {
  p_name: string;
  p_plan: Plan;
  p_allowed_origins: JsonColumn<string[]>;
  p_allowed_types: JsonColumn<string[]> | null;
  p_storage_quota: number | null;
  p_max_pending_uploads: number | null;
  p_require_upload_token: number;
  p_anonymous_share: number | null;
  p_created_at: number;
}

/** The project of a row joined with its project's columns, prefixed `p_`. */
function joinedProject(row: Omit<KeyWithProjectRecord, keyof KeyRecord> & { project_id: string }) {
  return toProject({
    id: row.project_id,
    name: row.p_name,
    plan: row.p_plan,
    allowed_origins: row.p_allowed_origins,
    allowed_types: row.p_allowed_types,
    storage_quota: row.p_storage_quota,
    max_pending_uploads: row.p_max_pending_uploads,
    require_upload_token: row.p_require_upload_token,
    anonymous_share: row.p_anonymous_share,
    created_at: row.p_created_at,
  });
}

export function toKeyWithProject(row: KeyWithProjectRecord): { key: ApiKeyRow; project: Project } {
  return { key: toKey(row), project: joinedProject(row) };
}

export interface UploadTokenRecord {
  id: string;
  project_id: string;
  hash: string;
  policy: JsonColumn<UploadTokenPolicy>;
  expires_at: number;
  created_at: number;
}

export type UploadTokenWithProjectRecord = UploadTokenRecord &
  Omit<KeyWithProjectRecord, keyof KeyRecord>;

export function toUploadToken(row: UploadTokenRecord): UploadTokenRow {
  return {
    id: row.id,
    projectId: row.project_id,
    hash: row.hash,
    policy: fromJson(row.policy),
    expiresAt: Number(row.expires_at),
    createdAt: Number(row.created_at),
  };
}

export function toUploadTokenWithProject(row: UploadTokenWithProjectRecord): {
  token: UploadTokenRow;
  project: Project;
} {
  return { token: toUploadToken(row), project: joinedProject(row) };
}

export interface TokenUsageRecord {
  files: number | string;
  bytes: number | string;
}

export function toTokenUsage(row: TokenUsageRecord | undefined): TokenUsage {
  return { files: Number(row?.files ?? 0), bytes: Number(row?.bytes ?? 0) };
}

export interface AnonymousUsageRecord {
  address_bytes: number | string;
  address_uploads: number | string;
}

export function toAnonymousUsage(row: AnonymousUsageRecord | undefined): AnonymousUsage {
  return {
    addressBytes: Number(row?.address_bytes ?? 0),
    addressUploads: Number(row?.address_uploads ?? 0),
  };
}

export function toProject(row: ProjectRecord): Project {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    allowedOrigins: fromJson(row.allowed_origins),
    allowedTypes: row.allowed_types === null ? null : fromJson(row.allowed_types),
    storageQuota: row.storage_quota === null ? null : Number(row.storage_quota),
    maxPendingUploads: row.max_pending_uploads,
    requireUploadToken: Number(row.require_upload_token) === 1,
    anonymousShare: row.anonymous_share === null ? null : Number(row.anonymous_share),
    createdAt: row.created_at,
  };
}

export function toKey(row: KeyRecord): ApiKeyRow {
  return {
    id: row.id,
    projectId: row.project_id,
    kind: row.kind,
    hash: row.hash,
    hint: row.hint,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

export function toFile(row: FileRecord): FileRow {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    mime: row.mime,
    size: row.size,
    createdAt: row.created_at,
    status: row.status,
    metadata: fromJson(row.metadata),
    partSize: row.part_size,
    storageUploadId: row.storage_upload_id,
    expiresAt: row.expires_at,
    deletedAt: row.deleted_at,
    checksum: row.checksum,
    uploadTokenHash: row.upload_token_hash,
    completedParts: row.completed_parts === null ? null : fromJson(row.completed_parts),
    visibility: row.visibility,
    deleteAt: row.delete_at,
    tokenId: row.token_id,
    anonymousAddress: row.anonymous_address,
    // PostgreSQL's bigint arrives as text.
    scannedAt: row.scanned_at === null ? null : Number(row.scanned_at),
    importState: row.import_state === null ? null : fromJson(row.import_state),
    placeholder: row.placeholder,
  };
}

export interface UsageRecord {
  stored_bytes: number | string;
  files: number | string;
  pending_bytes: number | string;
  pending_uploads: number | string;
  anonymous_bytes: number | string;
  anonymous_uploads: number | string;
}

/** A usage row as either driver gives it (PostgreSQL's bigint sums arrive as text). */
export function toUsage(row: UsageRecord | undefined): UsageCounts {
  return {
    storedBytes: Number(row?.stored_bytes ?? 0),
    files: Number(row?.files ?? 0),
    pendingBytes: Number(row?.pending_bytes ?? 0),
    pendingUploads: Number(row?.pending_uploads ?? 0),
    anonymousBytes: Number(row?.anonymous_bytes ?? 0),
    anonymousUploads: Number(row?.anonymous_uploads ?? 0),
  };
}

export interface WebhookTableRecord {
  id: string;
  project_id: string;
  url: string;
  /** `,file.ready,file.deleted,` */
  events: string;
  secret: string;
  created_at: number;
}

/** A webhook's types as its `events` column holds them: between commas, at both ends too. */
export function eventsColumn(types: readonly EventType[]): string {
  return `,${types.join(',')},`;
}

export function toWebhook(row: WebhookTableRecord): WebhookRow {
  return {
    id: row.id,
    projectId: row.project_id,
    url: row.url,
    events: row.events.split(',').filter((type) => type !== '') as EventType[],
    secret: row.secret,
    createdAt: row.created_at,
  };
}

export interface EventTableRecord {
  id: string;
  project_id: string;
  type: EventType;
  created_at: number;
  data: JsonColumn<unknown>;
}

export interface DeliveryTableRecord {
  event_id: string;
  webhook_id: string;
  status: DeliveryStatus;
  attempts: number;
  last_status: number | null;
}

export function toEvent(row: EventTableRecord, deliveries: DeliveryTableRecord[]): EventRow {
  return {
    id: row.id,
    projectId: row.project_id,
    type: row.type,
    createdAt: row.created_at,
    data: fromJson(row.data),
    deliveries: deliveries
      .filter((delivery) => delivery.event_id === row.id)
      .map((delivery) => ({
        webhookId: delivery.webhook_id,
        status: delivery.status,
        attempts: delivery.attempts,
        lastStatus: delivery.last_status,
      })),
  };
}

export interface ClaimedTableRecord {
  event_id: string;
  webhook_id: string;
  attempts: number;
  type: EventType;
  created_at: number;
  data: JsonColumn<unknown>;
  url: string;
  secret: string;
}

export function toClaimed(row: ClaimedTableRecord): Omit<ClaimedDelivery, 'claim'> {
  return {
    eventId: row.event_id,
    webhookId: row.webhook_id,
    attempts: row.attempts,
    type: row.type,
    createdAt: row.created_at,
    data: fromJson(row.data),
    url: row.url,
    secret: row.secret,
  };
}
