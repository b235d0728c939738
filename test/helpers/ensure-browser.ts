import { execFileSync } from 'node:child_process';
import { aptGet } from './debian-packages.js';
import { isRoot } from './system.js';
import { chromiumPath } from './wtr-plugins.js';

/**
 * Runs before the browser tests: makes sure a Chromium is there. On a Debian machine where
 * we are root (this project's CI and dev machines) it installs Debian's package; anywhere
 * else it says how to get one.
 */
if (chromiumPath()) process.exit(0);

let hasApt = false;
try {
  execFileSync('apt-get', ['--version'], { stdio: 'ignore' });
  hasApt = true;
} catch {
  hasApt = false;
}

if (isRoot && hasApt) {
  console.log('No Chromium found: installing Debian’s chromium package (about 30 s)…');
  aptGet(['update', '-qq'], { stdio: 'inherit' });
  aptGet(['install', '-y', '-qq', 'chromium'], {
    stdio: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (chromiumPath()) process.exit(0);
}

console.error(
  [
    'The browser tests need Chromium, and none was found.',
    'Either install one and point CHROME_PATH at it (Debian: apt-get install chromium),',
    'or let Playwright fetch its own: npx playwright install chromium',
  ].join('\n'),
);
process.exit(1);
