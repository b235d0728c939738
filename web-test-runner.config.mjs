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
  // Ceilings for a machine as loaded as CI's (every stage side by side on two cores): there
  // file-uploader.test.ts alone took 181 s of the 300 s a file had, and single tests need up
  // to 60 s (they make and send files of 11 MiB). Time a passing test never waits for: only
  // a hung one costs it.
  // (upload-engine/upload-tokens.test.ts's 300 files alone took over 300 s at load 35.)
  testsFinishTimeout: 900_000,
  // Each file is bundled by esbuild as it is asked for (2.8 s for file-uploader.test.ts at
  // load 34, and the cross run's four browsers ask at once) before its page can start.
  browserStartTimeout: 90_000,
  testsStartTimeout: 60_000,
  browsers: [
    playwrightLauncher({
      product: 'chromium',
      launchOptions: { executablePath, args: CHROMIUM_ARGS },
    }),
  ],
  plugins: [bundleTests(), filehostService()],
  // GREP=… runs only the tests whose names contain it (see bundleTests), for working on one.
  testFramework: {
    config: { timeout: 90_000 },
  },
  filterBrowserLogs: ({ args }) => !String(args[0] ?? '').includes('Lit is in dev mode'),
};
