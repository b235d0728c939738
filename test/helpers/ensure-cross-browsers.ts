import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { ensureDebianPackages } from './debian-packages.js';

/**
 * Runs before the cross-browser tests (web-test-runner.cross.config.mjs): makes sure
 * Debian's Firefox ESR, WebKitGTK's WebDriver server and the virtual display it draws on are
 * there, installing them as root with apt (this project's CI and dev machines); anywhere
 * else it says what to install. Playwright's own Firefox and WebKit cannot be downloaded here.
 */
export const FIREFOX_PATH = '/usr/bin/firefox-esr';
const WEBKIT_DRIVER_PATH = '/usr/bin/WebKitWebDriver';
const XVFB_RUN_PATH = '/usr/bin/xvfb-run';

const PACKAGES = ['firefox-esr', 'webkit2gtk-driver', 'xvfb', 'xauth'];

function ready(): boolean {
  return [FIREFOX_PATH, WEBKIT_DRIVER_PATH, XVFB_RUN_PATH].every((path) => existsSync(path));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (!ensureDebianPackages(PACKAGES, ready)) {
    console.error(
      `The cross-browser tests need Firefox ESR and WebKitGTK's WebDriver: apt-get install ${PACKAGES.join(' ')}`,
    );
    process.exit(1);
  }
}
