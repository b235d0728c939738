import { type Browser, chromium } from 'playwright-core';
import { startTestService, type TestService } from './service.js';
import { staticServer } from './static-server.js';
import { CHROMIUM_ARGS, chromiumPath } from './wtr-plugins.js';

/** The part size the e2e services sign with: the smallest, so that 12 MiB is three parts. */
export const E2E_PART_SIZE = 5 * 1024 * 1024;

/**
 * What the element's e2e tests stand on: a plain page with one `<file-uploader>` from the
 * built script-tag bundle (`dist/`, on a static server), a real service (PostgreSQL and the
 * Ceph gateway under FILEHOST_TEST_DEPLOYMENT=scale) that allows the page's origin, and
 * Chromium. `attributes`, and `page.head` (more of the page's head: a Content Security
 * Policy) and `page.script` (where `filehost.js` is loaded from: another origin's, as from a
 * CDN), are read each time the page is served, so a test can change them.
 */
export interface UploaderSite {
  origin: string;
  service: TestService;
  browser: Browser;
  close(): Promise<void>;
}

export async function startUploaderSite(
  title: string,
  attributes: () => string = () => '',
  page: { head?: () => string; script?: () => string } = {},
): Promise<UploaderSite> {
  let endpoint = '';
  let key = '';
  const site = await staticServer(
    () => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title>
${page.head?.() ?? ''}<script type="module" src="${page.script?.() ?? '/filehost.js'}"></script></head>
<body><file-uploader endpoint="${endpoint}" api-key="${key}" multiple ${attributes()}></file-uploader></body></html>`,
  );
  const service = await startTestService({
    FILEHOST_ALLOWED_ORIGINS: site.origin,
    FILEHOST_PART_SIZE: String(E2E_PART_SIZE),
  });
  endpoint = service.apiUrl;
  key = service.publishableKey;
  const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
  return {
    origin: site.origin,
    service,
    browser,
    async close() {
      await browser.close();
      await service.close();
      site.server.close();
    },
  };
}
