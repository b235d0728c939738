import type { Metadata, UploadTokenResponse } from './wire.generated.js';

/**
 * Shapes on the wire. The service produces exactly these; the client returns exactly these.
 * They are declared once, as the route schemas in src/server/contract/components.ts, and
 * written out as plain TypeScript in wire.generated.ts by `npm run openapi` (so a package
 * carries them without TypeBox); here they get the names the client uses. Each type's
 * documentation is its schema's description.
 */
export type {
  CompleteBatchRequest,
  CompleteBatchResponse,
  CompleteBatchResult,
  CompleteRequest,
  FileListResponse,
  FileRecord,
  FileStatus,
  ImageTransform,
  ImportError,
  ImportErrorCode,
  ImportProgress,
  ImportRequest,
  ImportResponse,
  ImportState,
  PartUploadResponse,
  SignBatchRequest,
  SignBatchResponse,
  SignedPart,
  SignedUrlRequest,
  SignedUrlResponse,
  SignRequest,
  SignResponse,
  UploadBatchEntry,
  UploadBatchResponse,
  UploadPartState,
  UploadResponse,
  UploadState,
  UploadTokenRequest,
  UploadTokenResponse,
  Usage,
  Visibility,
} from './wire.generated.js';

/** A file's metadata: string values (schema `Metadata`). */
export type FileMetadata = Metadata;

/** The policy of an upload token as the service keeps it: `null` where nothing was asked. */
export type UploadTokenPolicy = Omit<UploadTokenResponse, 'token' | 'expiresAt'>;
