/**
 * The ETag of a part PUT's answer, as both uploaders read it (the typed client from
 * `fetch`, `<file-uploader>` from Uppy's XHR).
 */

/**
 * The ETag of a part PUT's answer: every store sends the `ETag` header (S3's answer has no
 * body), and the embedded store's JSON body carries it too. Null when neither does.
 */
export function partEtag(header: string | null, body: unknown): string | null {
  if (header) return header;
  const etag = (body as { etag?: unknown } | null | undefined)?.etag;
  return typeof etag === 'string' && etag !== '' ? etag : null;
}

/** A part PUT's answer as an XHR holds it: its ETag, or null. */
export function xhrPartEtag(xhr: XMLHttpRequest): string | null {
  let body: unknown;
  try {
    body = JSON.parse(xhr.responseText);
  } catch {
    // S3 answers with an empty body.
  }
  return partEtag(xhr.getResponseHeader('ETag'), body);
}
