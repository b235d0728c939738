import type { PartChecksum } from '../../api/checksum.js';
import type { Plan } from '../../api/limits.js';
import type { FileMetadata } from '../../api/types.js';
import type { KeyKind } from '../secrets.js';
import type {
  ApiKeyRow,
  CompletedPart,
  FileRow,
  FileRowStatus,
  Project,
  UsageCounts,
} from './metadata-store.js';

/**
 * The tables' columns as both SQL stores read them. `J` and `P` are how a JSON column
 * arrives: text from SQLite (parsed by the caller), a value from PostgreSQL.
 */
export interface ProjectRecord<J = string[]> {
  id: string;
  name: string;
  plan: Plan;
  allowed_origins: J;
  allowed_types: J | null;
  storage_quota: number | null;
  max_pending_uploads: number | null;
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

export interface FileRecord<J = FileMetadata, P = CompletedPart[]> {
  id: string;
  project_id: string;
  name: string;
  mime: string;
  size: number;
  created_at: number;
  status: FileRowStatus;
  metadata: J;
  part_size: number | null;
  storage_upload_id: string | null;
  expires_at: number | null;
  deleted_at: number | null;
  checksum: PartChecksum | null;
  upload_token_hash: string | null;
  completed_parts: P | null;
}

/** Every column of `files` that a `FileRow` is made of, in the stores' insert order. */
export const FILE_COLUMNS =
  'id, project_id, name, mime, size, created_at, status, metadata, part_size, storage_upload_id, expires_at, deleted_at, checksum, upload_token_hash, completed_parts';

/** The insert's placeholders for `FILE_COLUMNS`, numbered by `placeholder(n)` (1-based). */
export function filePlaceholders(placeholder: (n: number) => string): string {
  return FILE_COLUMNS.split(',')
    .map((_, index) => placeholder(index + 1))
    .join(', ');
}

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
  ];
}

export function toProject(row: ProjectRecord): Project {
  return {
    id: row.id,
    name: row.name,
    plan: row.plan,
    allowedOrigins: row.allowed_origins,
    allowedTypes: row.allowed_types,
    storageQuota: row.storage_quota === null ? null : Number(row.storage_quota),
    maxPendingUploads: row.max_pending_uploads,
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
    metadata: row.metadata,
    partSize: row.part_size,
    storageUploadId: row.storage_upload_id,
    expiresAt: row.expires_at,
    deletedAt: row.deleted_at,
    checksum: row.checksum,
    uploadTokenHash: row.upload_token_hash,
    completedParts: row.completed_parts,
  };
}

/**
 * What a project holds, by one query both stores run: ready files, and the bytes and count
 * of uploads not finished (pending, and one-request uploads receiving their bytes).
 */
export const USAGE_SQL = (placeholder: string) => `SELECT
    coalesce(sum(CASE WHEN status = 'ready' THEN size ELSE 0 END), 0) AS stored_bytes,
    count(CASE WHEN status = 'ready' THEN 1 END) AS files,
    coalesce(sum(CASE WHEN status IN ('pending', 'receiving') THEN size ELSE 0 END), 0) AS pending_bytes,
    count(CASE WHEN status = 'pending' THEN 1 END) AS pending_uploads
  FROM files WHERE project_id = ${placeholder} AND status IN ('pending', 'receiving', 'ready')`;

export interface UsageRecord {
  stored_bytes: number | string;
  files: number | string;
  pending_bytes: number | string;
  pending_uploads: number | string;
}

/** A usage row as either driver gives it (PostgreSQL's bigint sums arrive as text). */
export function toUsage(row: UsageRecord | undefined): UsageCounts {
  return {
    storedBytes: Number(row?.stored_bytes ?? 0),
    files: Number(row?.files ?? 0),
    pendingBytes: Number(row?.pending_bytes ?? 0),
    pendingUploads: Number(row?.pending_uploads ?? 0),
  };
}
