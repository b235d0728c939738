import Uppy from '@uppy/core';
import Tus from '@uppy/tus';

/** Browser side of the tus comparison: Uppy's tus uploader, headless, one file. */
declare global {
  interface Window {
    uploadWithTus(endpoint: string): Promise<number>;
  }
}

/** Uploads the file chosen in `#source`. */
window.uploadWithTus = async (endpoint) => {
  // No resuming from a fingerprint of an earlier run: every run sends every byte.
  const uppy = new Uppy({ autoProceed: false }).use(Tus, {
    endpoint,
    retryDelays: [],
    storeFingerprintForResuming: false,
    removeFingerprintOnSuccess: true,
  });
  const file = (document.getElementById('source') as HTMLInputElement).files?.[0];
  if (!file) throw new Error('no file chosen');
  uppy.addFile({ name: file.name, type: file.type, data: file });
  const started = performance.now();
  const result = await uppy.upload();
  if (!result || result.failed?.length) throw new Error('tus upload failed');
  const elapsed = performance.now() - started;
  uppy.destroy();
  return elapsed;
};
