export { API_ERROR_STATUS, type ApiErrorCode } from '../api/errors.js';
export * from '../api/events.js';
export type * from '../api/types.js';
export { FilehostApi } from './api.js';
export { ApiError, type ClientErrorCode } from './api-error.js';
export { blobSource, FilehostClient } from './client.js';
export type { CallOptions, FilehostClientOptions } from './connection.js';
export { FilehostConnection } from './connection.js';
export type {
  CompleteResult,
  FilehostApiOptions,
  ResumeStore,
  UploadCallOptions,
  UploadFileOptions,
  UploadFileResult,
  UploadFilesItem,
  UploadFilesOptions,
  UploadProgress,
  UploadSource,
} from './options.js';
export { type RetryOptions, retryDelayMs, withRetry } from './retry.js';
export { isTransient } from './transient.js';
export type { UploadBody } from './upload-body.js';
export type { RememberedUpload } from './upload-sequence.js';
export type { UploadTokenGrant, UploadTokenProvider } from './upload-token.js';
