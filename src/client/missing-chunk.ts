/**
 * A chunk of the script-tag bundle (the upload engine, the part sender, MD5, …) that the
 * browser could not import although its server answers for it: the file is not deployed
 * beside `filehost.js` (a 404, or a page served in its place). Not a lost connection, so
 * never worded as one, nor retried by itself.
 */
export class MissingChunkError extends Error {}

/**
 * Imports an on-use chunk, telling a missing file from a lost connection, which fail the
 * same way (a `TypeError` naming the URL, where the browser names it). The URL is asked for
 * once more: any answer (`no-cors`: a CDN's 404 page without CORS headers is an answer too)
 * means the connection works and the file is missing; a failed fetch is a lost connection,
 * rethrown as it was. The missing URL is named in the console for whoever deploys the page.
 * Written small: it is part of the script tag's first load.
 */
export function loadChunk<T>(load: () => Promise<T>): Promise<T> {
  return load().catch(async (error: unknown) => {
    const url = /\w+:\/\/\S+/.exec(`${error}`)?.[0];
    // A browser that names no URL (Safari): online, the file is what is missing.
    if (
      !(url ? await fetch(url, { mode: 'no-cors' }).then(Boolean, () => false) : navigator.onLine)
    )
      throw error;
    console.error('filehost: missing', url ?? error, '(deploy all of dist/ beside filehost.js)');
    throw new MissingChunkError();
  });
}
