import type { Plan } from '../../api/limits.js';
import type { FileMetadata } from '../../api/types.js';
import type { KeyKind } from '../secrets.js';

export interface Project {
  id: string;
  name: string;
  plan: Plan;
  /** Exact origins (scheme, host, port) from which the publishable key may be used. */
  allowedOrigins: string[];
  createdAt: number;
}

export interface ApiKeyRow {
  id: string;
  projectId: string;
  kind: KeyKind;
  /** SHA-256 of the key; the key itself is never stored. */
  hash: string;
  hint: string;
  createdAt: number;
  revokedAt: number | null;
}

/**
 * `receiving`: a one-request upload whose bytes are still arriving; invisible everywhere
 * and removed with its bytes if the process dies. `deleted`: gone for clients; `purged`
 * says whether its bytes have been removed too.
 */
export type FileRowStatus = 'receiving' | 'pending' | 'ready' | 'deleted';

export interface FileRow {
  id: string;
  projectId: string;
  name: string;
  mime: string;
  size: number;
  createdAt: number;
  status: FileRowStatus;
  metadata: FileMetadata;
  /** Multi-step uploads only: the part size they were signed with. */
  partSize: number | null;
  /** Multi-step uploads only: the blob store's handle for the multipart upload. */
  storageUploadId: string | null;
  /** Pending uploads: when their signed URLs stop working. */
  expiresAt: number | null;
  deletedAt: number | null;
}

export interface PartRow {
  partNumber: number;
  size: number;
  etag: string;
}

export interface ListPosition {
  createdAt: number;
  id: string;
}

/**
 * Everything the service remembers apart from file bytes. Async so that a networked
 * database (PostgreSQL) can implement it; every implementation passes
 * `test/server/db/metadata-store.conformance.ts`.
 */
export interface MetadataStore {
  close(): Promise<void>;

  createProject(project: Project): Promise<void>;
  updateProject(
    id: string,
    patch: Partial<Pick<Project, 'name' | 'plan' | 'allowedOrigins'>>,
  ): Promise<Project | null>;
  getProject(id: string): Promise<Project | null>;
  listProjects(): Promise<Project[]>;

  addKey(key: ApiKeyRow): Promise<void>;
  /** Finds a live (not revoked) key by the hash of its value, with its project. */
  findKeyByHash(hash: string): Promise<{ key: ApiKeyRow; project: Project } | null>;
  listKeys(projectId: string): Promise<ApiKeyRow[]>;
  revokeKey(id: string, at: number): Promise<boolean>;

  insertFile(file: FileRow): Promise<void>;
  /** A file a client can see (pending or ready) in the given project. */
  getVisibleFile(projectId: string, id: string): Promise<FileRow | null>;
  /** Any non-deleted row by id alone: the CDN and signed part URLs carry no project. */
  getLiveFile(id: string): Promise<FileRow | null>;
  /** Visible files, newest first, strictly after `after` in (createdAt desc, id desc). */
  listFiles(projectId: string, after: ListPosition | null, limit: number): Promise<FileRow[]>;
  /** Moves a row from `from` to `ready`, setting the given fields; false if it was not in `from`. */
  markReady(
    id: string,
    from: 'receiving' | 'pending',
    fields: Partial<Pick<FileRow, 'name' | 'mime' | 'size' | 'metadata' | 'createdAt'>>,
  ): Promise<boolean>;
  /** Marks a visible file deleted (it stops being listed and served at once). */
  markDeleted(projectId: string, id: string, at: number): Promise<FileRow | null>;
  /** Removes a row that never became visible (a failed one-request upload). */
  discardReceiving(id: string): Promise<void>;
  extendExpiry(id: string, expiresAt: number): Promise<void>;
  setStorageUploadId(id: string, storageUploadId: string): Promise<void>;

  /** Rows whose bytes may need removing: deleted-but-not-purged and leftover `receiving` rows. */
  listDeletedUnpurged(limit: number): Promise<FileRow[]>;
  listReceiving(limit: number): Promise<FileRow[]>;
  markPurged(id: string): Promise<void>;
  /** Pending uploads whose expiry is before `before`, oldest first. */
  listExpiredPending(before: number, limit: number): Promise<FileRow[]>;
  /** Marks an abandoned pending upload deleted; false if it changed state meanwhile. */
  expirePending(id: string, at: number): Promise<boolean>;

  /** Records a part that arrived whole (replacing an earlier one). */
  putPart(fileId: string, part: PartRow): Promise<void>;
  /** Forgets a part whose bytes are being rewritten: it is no longer whole. */
  clearPart(fileId: string, partNumber: number): Promise<void>;
  listParts(fileId: string): Promise<PartRow[]>;
}
