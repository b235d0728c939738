// Browser tests: real Chromium (Playwright) against a real filehost service on loopback.
// Run through `npm run test:browser`, which loads TypeScript with tsx.
import { playwrightLauncher } from '@web/test-runner-playwright';
import {
  bundleTests,
  CHROMIUM_ARGS,
  chromiumPath,
  filehostService,
} from './test/helpers/wtr-plugins.ts';

const executablePath = chromiumPath();
if (!executablePath) {
  console.warn(
    "No Chromium found at CHROME_PATH or /usr/bin/chromium: using Playwright's own browser. If it is missing, run `npx playwright install chromium` (or `apt-get install chromium`).",
  );
}

export default {
  files: ['test/elements/**/*.test.ts'],
  hostname: 'localhost',
  nodeResolve: true,
  concurrency: 1,
  testsFinishTimeout: 300_000,
  browsers: [
    playwrightLauncher({
      product: 'chromium',
      launchOptions: { executablePath, args: CHROMIUM_ARGS },
    }),
  ],
  plugins: [bundleTests(), filehostService()],
  // GREP=… runs only the tests whose names contain it (see bundleTests), for working on one.
  testFramework: {
    config: { timeout: 30_000 },
  },
  filterBrowserLogs: ({ args }) => !String(args[0] ?? '').includes('Lit is in dev mode'),
};
