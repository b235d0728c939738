/**
 * Writes an upload "remembered from an earlier visit" into the page's IndexedDB, as
 * `<file-uploader>` writes one (a 700 MB video whose file must be chosen again), so that
 * an uploader for this endpoint and key shows it as interrupted. Self-contained (it uses
 * nothing outside its body), so Playwright's `evaluate` can run it in a page too.
 */
export function rememberUpload([endpoint, apiKey]: readonly [string, string]): Promise<void> {
  return new Promise((resolve, reject) => {
    const opening = indexedDB.open('filehost-uploader');
    opening.onupgradeneeded = () => opening.result.createObjectStore('uploads');
    opening.onerror = () => reject(opening.error);
    opening.onsuccess = () => {
      const writing = opening.result.transaction('uploads', 'readwrite');
      writing.objectStore('uploads').put(
        {
          endpoint,
          apiKey,
          uploadId: 'earlier',
          fingerprint: 'f',
          name: 'wedding-video.mp4',
          size: 734_003_200,
          relativePath: null,
          file: null,
        },
        `${endpoint}\n${apiKey}\nf`,
      );
      writing.oncomplete = () => {
        opening.result.close();
        resolve();
      };
    };
  });
}
