export { API_ERROR_STATUS, type ApiErrorCode } from '../api/errors.js';
export * from '../api/events.js';
export type * from '../api/types.js';
export { ApiError, type ClientErrorCode } from './api-error.js';
export {
  blobSource,
  type CallOptions,
  type CompleteResult,
  FilehostApi,
  type FilehostApiOptions,
  FilehostClient,
  type FilehostClientOptions,
  type RememberedUpload,
  type ResumeStore,
  type UploadBody,
  type UploadCallOptions,
  type UploadFileOptions,
  type UploadFileResult,
  type UploadFilesItem,
  type UploadFilesOptions,
  type UploadProgress,
  type UploadSource,
} from './client.js';
export { FilehostConnection } from './connection.js';
export { type RetryOptions, retryDelayMs, withRetry } from './retry.js';
export { isTransient } from './transient.js';
export type { UploadTokenGrant, UploadTokenProvider } from './upload-token.js';
