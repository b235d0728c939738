/**
 * Stands in for Uppy core's `supportsUploadProgress` in the script-tag bundle only (see
 * vite.config.ts). It sniffs for EdgeHTML 15-18, which fired no upload progress events; the
 * bundle is ES2022 (private methods, class fields), which no EdgeHTML can even parse, so in
 * any browser that runs it the answer is yes.
 */
export default function supportsUploadProgress(): boolean {
  return true;
}
