/**
 * The demo: <file-uploader> and <file-list> against the local service, configured with the
 * publishable key that `npm start` hands to the page (never the secret key).
 */
import '../src/index.js';

const endpoint = import.meta.env.VITE_FILEHOST_API_URL as string;
const apiKey = import.meta.env.VITE_FILEHOST_PUBLISHABLE_KEY as string;

for (const element of document.querySelectorAll('file-uploader, file-list')) {
  Object.assign(element, { endpoint, apiKey });
}
