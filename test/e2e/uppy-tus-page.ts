import Uppy from '@uppy/core';
import Tus from '@uppy/tus';
import '../../src/index.js';

/**
 * The page of `uppy-tus.test.ts`: Uppy's own tus uploader (no code of ours on the upload's
 * path) sends a file to filehost's `/v1/tus` with the publishable key, then `<file-list>`
 * shows what the project holds.
 */
declare global {
  interface Window {
    uploadWithUppyTus(
      endpoint: string,
      key: string,
      name: string,
      text: string,
    ): Promise<{ fileId: string | null; uploadUrl: string | null }>;
  }
}

window.uploadWithUppyTus = async (endpoint, key, name, text) => {
  let fileId: string | null = null;
  const uppy = new Uppy({ autoProceed: false }).use(Tus, {
    endpoint: `${endpoint}/v1/tus`,
    headers: { Authorization: `Bearer ${key}` },
    retryDelays: [],
    storeFingerprintForResuming: false,
    // The last answer's headers, read as CORS lets a page read them.
    onAfterResponse: (_request, response) => {
      fileId = response.getHeader('Filehost-File-Id') ?? fileId;
    },
  });
  uppy.addFile({ name, type: 'text/plain', data: new Blob([text], { type: 'text/plain' }) });
  const result = await uppy.upload();
  const [done] = result?.successful ?? [];
  if (!done || result?.failed?.length) throw new Error('Uppy tus upload failed');
  uppy.destroy();
  const list = document.createElement('file-list');
  list.setAttribute('endpoint', endpoint);
  list.setAttribute('api-key', key);
  document.body.append(list);
  return { fileId, uploadUrl: done.tus?.uploadUrl ?? null };
};
