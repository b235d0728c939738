/** Paths of the API, relative to its base URL. */

import { FILES_PATH } from './page-api.js';
import { uploadRoutes } from './upload-routes.js';

export const API_VERSION_PREFIX = '/v1';

export const routes = {
  ...uploadRoutes,
  upload: () => '/v1/upload',
  files: () => FILES_PATH,
  file: (id: string) => `/v1/files/${encodeURIComponent(id)}`,
  part: (id: string, partNumber: number) =>
    `/v1/uploads/${encodeURIComponent(id)}/parts/${partNumber}`,
} as const;

/**
 * Paths only a secret key may call and no page needs (a page never holds that key): apart
 * from `routes`, so that browser bundles, which carry `routes`, leave these out.
 */
export const backendRoutes = {
  usage: () => '/v1/usage',
  webhooks: () => '/v1/webhooks',
  webhook: (id: string) => `/v1/webhooks/${encodeURIComponent(id)}`,
  events: () => '/v1/events',
  redeliver: (id: string) => `/v1/events/${encodeURIComponent(id)}/redeliver`,
  /** A signed CDN link to a file: `SignedUrlRequest` → `SignedUrlResponse`. */
  signedUrl: (id: string) => `/v1/files/${encodeURIComponent(id)}/signed-url`,
  /** Mints an upload token: `UploadTokenRequest` → `UploadTokenResponse`. */
  uploadTokens: () => '/v1/upload-tokens',
} as const;

/** Paths no client of this package calls (apart, so that no bundle carries them). */
export const serviceRoutes = {
  /** This API's OpenAPI document (no key needed). */
  openapi: () => '/v1/openapi.json',
  /** Liveness, on the API and the CDN (no key needed). */
  healthz: () => '/healthz',
  /** Readiness: the database and the storage answered (no key needed). */
  readyz: () => '/readyz',
  /** The local-disk store's one part URL; its parts are PUT to the URL a sign gave. */
  sharedPart: () => '/v1/parts',
} as const;

/** A pending upload's own credential (state, complete): see `SignResponse.uploadToken`. */
export const UPLOAD_TOKEN_HEADER = 'X-Upload-Token';

/**
 * Headers a browser may send to the API; the CORS preflight allows exactly these, on every
 * path alike. `Content-Digest` is the digest a part PUT of an upload signed with checksums
 * carries (the local store's per-part URLs are API paths like any other).
 */
export const ALLOWED_REQUEST_HEADERS = [
  'Authorization',
  'Content-Type',
  'X-Filename',
  'X-Metadata',
  // One-request upload of a private file (`X-Visibility: private`).
  'X-Visibility',
  'Content-Digest',
  UPLOAD_TOKEN_HEADER,
];
export const EXPOSED_RESPONSE_HEADERS = ['Retry-After', 'ETag', 'X-Request-Id'];
export const ALLOWED_METHODS = ['GET', 'POST', 'PUT', 'DELETE'];

// Apart (in `page-api.ts`): what a page's first load needs without the route table.
export {
  FILES_PATH,
  isSecretKey,
  PUBLISHABLE_KEY_PREFIX,
  SECRET_KEY_PREFIX,
  UPLOAD_TOKEN_PREFIX,
} from './page-api.js';

/** Every id the service makes (files, projects) has this shape; any other is simply unknown. */
export const ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;

/** The paging cursor: `<createdAt>_<id>`. Clients treat it as opaque. */
export const CURSOR_PATTERN = /^(\d{1,16})_([A-Za-z0-9_-]{1,128})$/;
