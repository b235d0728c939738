/**
 * The paths a page's uploads call (the upload engine's sign, batch upload, complete and
 * state of an upload; the Link source's import): apart from the rest of `routes`, so that
 * the script-tag bundle's engine, which carries these, leaves out the paths no page calls.
 */
export const uploadRoutes = {
  /** Batch upload: many small files' bytes in one multipart request. */
  uploadBatch: () => '/v1/upload/batch',
  sign: () => '/v1/uploads/sign',
  /** Import from a URL: `ImportRequest` → `202 ImportResponse`. */
  import: () => '/v1/uploads/import',
  uploadState: (id: string) => `/v1/uploads/${encodeURIComponent(id)}`,
  complete: (id: string) => `/v1/uploads/${encodeURIComponent(id)}/complete`,
  /** Batch complete: `{ "uploads": [ { "id", "parts"? }, … ] }`. */
  completeMany: () => '/v1/uploads/complete',
} as const;
