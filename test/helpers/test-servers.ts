import { rgwAvailable } from './ceph-rgw.js';
import { clamdAvailable } from './clamd.js';
import { nginxAvailable } from './nginx.js';
import { photoToolsAvailable } from './photos.js';
import { postgresAvailable } from './postgres.js';
import { prometheusAvailable } from './prometheus.js';

/**
 * `.ci/run`'s step before `npm test`: the Debian packages of every real server the tests
 * use (PostgreSQL, Ceph RGW, clamd, nginx, the photo tools, Prometheus; Chromium is
 * `ensure-browser.ts`'s), installed one after the other with one `apt-get update`, before
 * test files run side by side. Each test file still installs what it misses by itself
 * (taking turns on apt's lock), so `npm test` alone works too; this only keeps the
 * installs out of the tests' own time limits. Prints what is missing where it cannot
 * install (not root, no apt).
 */
const missing = [
  postgresAvailable,
  rgwAvailable,
  clamdAvailable,
  nginxAvailable,
  photoToolsAvailable,
  prometheusAvailable,
].flatMap((available) => {
  const result = available();
  return result ? [result.skip] : [];
});
for (const line of missing) console.warn(line);
