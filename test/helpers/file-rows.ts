import type { FileRow, Project } from '../../src/server/db/metadata-store.js';

/**
 * A ready file's row as the stores keep it, for tests and benchmarks that write rows
 * directly: the fields a one-request upload leaves, with what the caller sets laid over.
 */
export function readyFileRow(
  fields: Pick<FileRow, 'id' | 'projectId'> & Partial<FileRow>,
): FileRow {
  return {
    name: 'upload',
    mime: 'application/octet-stream',
    size: 1,
    createdAt: Date.now(),
    status: 'ready',
    metadata: {},
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
    ...fields,
  };
}

/**
 * A project's row as the stores keep it, for tests and benchmarks that create projects
 * directly: a free project with no limits of its own, with what the caller sets laid over.
 */
export function projectRow(fields: Pick<Project, 'id'> & Partial<Project>): Project {
  return {
    name: 'P',
    plan: 'free',
    allowedOrigins: [],
    allowedTypes: null,
    storageQuota: null,
    maxPendingUploads: null,
    requireUploadToken: false,
    anonymousShare: null,
    createdAt: 1,
    ...fields,
  };
}
