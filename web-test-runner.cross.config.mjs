// Element tests in Firefox and WebKit (issue #57: the editor works beyond Chromium),
// with Debian's browsers only: Playwright's own Firefox and WebKit builds cannot be
// downloaded on this project's machines. `npm run test:browser:cross`, after
// test/helpers/ensure-cross-browsers.ts has installed them.
// - Firefox: Debian's firefox-esr, driven by puppeteer-core over WebDriver BiDi.
// - WebKit: WebKitGTK's MiniBrowser (Debian's webkit2gtk-driver), driven by webdriverio over
//   WebDriver. WebKitGTK is WebKit, the engine Safari is built on; it is not Safari.
// Neither protocol can emulate prefers-color-scheme, so each browser runs twice, light and
// dark (the editor's axe audits check the scheme each runs in).
import { chromeLauncher, puppeteerCore } from '@web/test-runner-chrome';
import { WebdriverLauncher } from '@web/test-runner-webdriver';
import { FIREFOX_PATH } from './test/helpers/ensure-cross-browsers.ts';
import { MINIBROWSER, startWebKitDriver } from './test/helpers/webkit-driver.ts';
import { bundleTests, filehostService } from './test/helpers/wtr-plugins.ts';

/**
 * The element tests that pass in both. The others call Playwright's own page API
 * (test/helpers/wtr-plugins.ts: network faults, touch, file pickers), or fail in WebKitGTK:
 * file-uploader-images.test.ts (WebKit's canvas writes no WebP: the shrunk image is PNG)
 * and upload-engine/resume-memory.test.ts (one failed IndexedDB write loses the others).
 */
const CROSS_BROWSER_FILES = [
  'test/elements/file-uploader-layout.test.ts',
  'test/elements/image-editor.test.ts',
  'test/elements/localize.test.ts',
  'test/elements/file-uploader-images-no-worker.test.ts',
  'test/elements/row-groups.test.ts',
  'test/elements/theme.test.ts',
  'test/elements/upload-engine/connections.test.ts',
  'test/elements/upload-engine/file-state.test.ts',
  'test/elements/upload-engine/rejections.test.ts',
  'test/elements/upload-engine/sign-step.test.ts',
  'test/elements/upload-engine/upload-engine.test.ts',
  'test/elements/upload-engine/upload-rate.test.ts',
];

function named(launcher, name) {
  const initialize = launcher.initialize.bind(launcher);
  launcher.initialize = async (...args) => {
    await initialize(...args);
    launcher.name = name;
  };
  launcher.name = name;
  return launcher;
}

/**
 * The tests press chords in Playwright's words (`Shift+ArrowLeft`, as web-test-runner.config.mjs
 * runs them); Puppeteer and webdriverio know only single keys, so the launchers here split a
 * chord into its keys: held together, let go in reverse.
 */
function chordKeys(key) {
  return key.length > 1 && key.includes('+') ? key.split('+') : [key];
}

function pressingChords(launcher) {
  const getPage = launcher.getPage.bind(launcher);
  launcher.getPage = (sessionId) => {
    const page = getPage(sessionId);
    const keyboard = page.keyboard;
    if (!keyboard.pressesChords) {
      const press = keyboard.press.bind(keyboard);
      keyboard.press = async (key, options) => {
        const keys = chordKeys(key);
        const last = keys.pop();
        for (const held of keys) await keyboard.down(held);
        await press(last, options);
        for (const held of keys.reverse()) await keyboard.up(held);
      };
      keyboard.pressesChords = true;
    }
    return page;
  };
  return launcher;
}

function firefox(scheme) {
  return named(
    pressingChords(
      chromeLauncher({
        puppeteer: puppeteerCore,
        launchOptions: {
          browser: 'firefox',
          executablePath: FIREFOX_PATH,
          headless: true,
          // 0: content is told the user prefers dark; 1: light.
          extraPrefsFirefox: {
            'layout.css.prefers-color-scheme.content-override': scheme === 'dark' ? 0 : 1,
          },
        },
      }),
    ),
    `Firefox ESR (${scheme})`,
  );
}

// One driver per browser: WebKitWebDriver keeps one session at a time.
const drivers = { light: await startWebKitDriver(), dark: await startWebKitDriver() };

function webkit(scheme) {
  const launcher = new WebdriverLauncher({
    hostname: '127.0.0.1',
    port: drivers[scheme].port,
    path: '/',
    logLevel: 'warn',
    capabilities: {
      browserName: 'MiniBrowser',
      // WebKitWebDriver speaks classic WebDriver only: no BiDi session.
      'wdio:enforceWebDriverClassic': true,
      'webkitgtk:browserOptions': {
        binary: MINIBROWSER,
        args: ['--automation', ...(scheme === 'dark' ? ['--dark-mode'] : [])],
      },
    },
  });
  // webdriverio's keys() holds every key it is given, then lets them go: a chord.
  const sendKeys = launcher.sendKeys.bind(launcher);
  launcher.sendKeys = (sessionId, keys) => sendKeys(sessionId, keys.flatMap(chordKeys));
  return named(launcher, `WebKitGTK (${scheme})`);
}

export default {
  files: CROSS_BROWSER_FILES,
  hostname: 'localhost',
  nodeResolve: true,
  concurrency: 1,
  // Ceilings for a machine as loaded as CI's (every stage side by side on two cores): there
  // the editor's keyboard test, 35 keys each a WebDriver round trip, outlasted 30 s in
  // WebKitGTK. Time a passing test never waits for: only a hung one costs it.
  testsFinishTimeout: 600_000,
  // Each file is bundled by esbuild as it is asked for (2.8 s for file-uploader.test.ts at
  // load 34, and the cross run's four browsers ask at once) before its page can start.
  browserStartTimeout: 90_000,
  testsStartTimeout: 60_000,
  browsers: [firefox('light'), firefox('dark'), webkit('light'), webkit('dark')],
  plugins: [
    bundleTests(),
    filehostService(),
    {
      name: 'filehost-webkit-drivers',
      serverStop() {
        drivers.light.stop();
        drivers.dark.stop();
      },
    },
  ],
  testFramework: { config: { timeout: 90_000 } },
  filterBrowserLogs: ({ args }) => !String(args[0] ?? '').includes('Lit is in dev mode'),
};
