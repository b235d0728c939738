import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { TestRunnerPlugin } from '@web/test-runner';
import { build } from 'esbuild';
import type { CDPSession, Page, Request as PlaywrightRequest, Route } from 'playwright-core';
import { hashKey, newId } from '../../src/server/ground/secrets.js';
import { createKey, createProject } from '../../src/server/start/admin.js';
import type { RunningService } from '../../src/server/start/service.js';
import { serveRemote } from './remote-server.js';
import { startTestService, type TestService } from './service.js';
import { SHORT_URL_TTL_SECONDS } from './short-lived-urls.js';

/** Chromium's network emulation lifted: no latency, no limit either way. */
const UNTHROTTLED = { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 };

/**
 * Serves each browser test file as one esbuild bundle, so the tests run the real Lit and
 * the real Uppy exactly as a bundler would ship them (Uppy's CommonJS dependencies and
 * JSON import need a bundler; the test runner's dev server alone cannot load them).
 */
/**
 * GREP=… runs only the tests whose full names contain it. The others are skipped from a
 * root hook, so they count as skipped; mocha's own `grep` leaves them "not run", which the
 * test runner reports as failed.
 */
function grepBanner(grep: string | undefined): { js: string } | undefined {
  if (!grep) return undefined;
  return {
    js: `beforeEach(function () { if (!this.currentTest.fullTitle().includes(${JSON.stringify(grep)})) this.skip(); });`,
  };
}

export function bundleTests(): TestRunnerPlugin {
  return {
    name: 'filehost-bundle-tests',
    async serve(context) {
      if (!context.path.endsWith('.test.ts')) return undefined;
      const result = await build({
        entryPoints: [resolve(`.${context.path}`)],
        bundle: true,
        format: 'esm',
        platform: 'browser',
        target: 'es2022',
        write: false,
        sourcemap: 'inline',
        logLevel: 'silent',
        // Served by the test runner itself at run time.
        external: ['/__web-dev-server__web-socket.js'],
        banner: grepBanner(process.env.GREP),
      });
      return { body: result.outputFiles[0]?.text ?? '', type: 'js' };
    },
  };
}

export interface ProjectForTest {
  endpoint: string;
  cdnUrl: string;
  publishableKey: string;
  origin: string;
}

/**
 * A real filehost service for the browser tests, on free loopback ports with a temporary
 * data directory, plus commands the tests call through `executeServerCommand`:
 * - `filehost-project` `{ allowTestOrigin?, plan?, rateLimited?, shortLivedUrls?, requireUploadToken? }`: a fresh project with its
 *   publishable key (the secret key never reaches the browser);
 * - `filehost-token` `{ publishableKey, policy?, expired? }`: an upload token of that key's
 *   project, minted by `POST /v1/upload-tokens` with its secret key as a backend would (with
 *   `expired`, a copy of it already past its expiry, written to the database);
 * - `filehost-usage` `{ publishableKey }`: `GET /v1/usage` of that key's project;
 * - `filehost-device` `{ action: 'touch', enabled }` (a touch screen, as a phone's) or
 *   `{ action: 'pick', selector, files: { path: text }, folder? }` (real files, or a real
 *   folder, set on a file input);
 * - `filehost-network` `{ action: 'drop' | 'restore' | 'offline-for' | 'log' | 'answered' | 'ended' | 'hold' | 'held' | 'release' | 'together' | 'refuse' | 'flip' | 'grant-clipboard' | 'throttle', pattern?, ms?, once?, skip?, bytesPerSecond?, count? }`:
 *   ('log' answers the requests made since the previous 'log'; 'answered' those whose
 *   answer has arrived since 'log' started recording; 'ended' those answered or failed,
 *   called off by the page included)
 *   real network failures in the browser under test (Playwright).
 */
export function filehostService(): TestRunnerPlugin {
  let main: RunningService | undefined;
  let limited: RunningService | undefined;
  let shortLived: RunningService | undefined;
  const running: TestService[] = [];
  /** The stand-in remote site of the Link source's tests (`filehost-remote`), once asked. */
  let remote: ReturnType<typeof serveRemote> | undefined;
  let origin = '';
  const requestLogs = new WeakMap<Page, string[]>();
  /** Each page's DevTools session once its network was throttled (see 'throttle'). */
  const throttled = new WeakMap<Page, CDPSession>();
  /**
   * Each page's held requests, to let go at once on 'release' (see 'hold'), each with the
   * 'hold' that holds it: 'held' counts only the latest hold's, as one a test left to end
   * by itself (a 'restore' without 'release') is still held for the rest of its `ms`.
   */
  const held = new WeakMap<Page, Map<() => void, number>>();
  /** Each page's latest 'hold', counted. */
  const holds = new WeakMap<Page, number>();
  /** Pages whose held requests were released: their 'hold' routes hold nothing more. */
  const releasing = new WeakSet<Page>();
  const answeredLogs = new WeakMap<Page, string[]>();
  const endedLogs = new WeakMap<Page, string[]>();
  /** Each project's service and secret key, by its publishable key (for tokens and usage). */
  const backends = new Map<string, { service: RunningService; secretKey: string }>();

  async function start(env: Record<string, string>): Promise<RunningService> {
    const started = await startTestService({
      FILEHOST_ALLOWED_ORIGINS: origin,
      FILEHOST_PART_SIZE: String(5 * 1024 * 1024),
      // The elements' tests compare the bytes the CDN serves with those a page sent; the
      // service's removal of photos' location has tests of its own (test/server/ingest).
      FILEHOST_STRIP_METADATA: 'none',
      // The elements' import tests fetch from a server on loopback: a private target.
      FILEHOST_IMPORT_ALLOW_PRIVATE: 'true',
      ...env,
    });
    running.push(started);
    return started.service;
  }

  return {
    name: 'filehost-service',
    async serverStart({ config }) {
      origin = `http://${config.hostname ?? 'localhost'}:${config.port}`;
      main = await start({ FILEHOST_RATE_LIMIT: '100000' });
      // Three requests a minute: the fourth is refused with rate_limited and Retry-After.
      limited = await start({ FILEHOST_RATE_LIMIT: '3' });
      // Signed URLs that expire after a few seconds.
      shortLived = await start({ FILEHOST_UPLOAD_URL_TTL: String(SHORT_URL_TTL_SECONDS) });
    },
    async serverStop() {
      remote?.then(({ server }) => server.close());
      await Promise.all(running.map((service) => service.close()));
    },
    async executeCommand({ command, payload, session }) {
      const options = (payload ?? {}) as Record<string, unknown>;
      if (command === 'filehost-remote') {
        // A real site on loopback for imports to fetch from (the embedded test service
        // allows private targets): /slow.bin, 256 KiB sent in 8 pieces over 4 s (so that a
        // row shows progress), /to-ftp a redirect the service refuses to follow
        // (import_refused_target), and a 404 for any other path.
        remote ??= serveRemote('127.0.0.1', (request, response) => {
          if (request.url === '/to-ftp') {
            response.writeHead(302, { Location: 'ftp://example.com/file.bin' }).end();
            return;
          }
          if (request.url !== '/slow.bin') {
            response.writeHead(404).end('not here');
            return;
          }
          const piece = Buffer.alloc(32 * 1024, 7);
          response.writeHead(200, {
            'Content-Type': 'application/octet-stream',
            'Content-Length': String(piece.length * 8),
          });
          let sent = 0;
          const timer = setInterval(() => {
            response.write(piece);
            if (++sent === 8) {
              clearInterval(timer);
              response.end();
            }
          }, 500);
          response.on('close', () => clearInterval(timer));
        });
        return (await remote).url;
      }
      if (command === 'filehost-project') {
        const service = options.rateLimited ? limited : options.shortLivedUrls ? shortLived : main;
        if (!service) throw new Error('The filehost service is not running');
        const db = service.context.db;
        const project = await createProject(db, {
          name: 'browser test',
          plan: options.plan === 'paid' ? 'paid' : 'free',
          allowedOrigins:
            options.allowTestOrigin === false ? ['https://elsewhere.example'] : [origin],
          requireUploadToken: options.requireUploadToken === true,
        });
        const { key } = await createKey(db, project.id, 'publishable');
        const secret = await createKey(db, project.id, 'secret');
        backends.set(key, { service, secretKey: secret.key });
        const result: ProjectForTest = {
          endpoint: service.apiUrl,
          cdnUrl: service.cdnUrl,
          publishableKey: key,
          origin,
        };
        return result;
      }
      if (command === 'filehost-token' || command === 'filehost-usage') {
        const backend = backends.get(String(options.publishableKey));
        if (!backend) throw new Error('No such project');
        const { service, secretKey } = backend;
        const usage = command === 'filehost-usage';
        const answer = await fetch(`${service.apiUrl}/v1/${usage ? 'usage' : 'upload-tokens'}`, {
          method: usage ? 'GET' : 'POST',
          headers: { Authorization: `Bearer ${secretKey}`, 'Content-Type': 'application/json' },
          body: usage ? undefined : JSON.stringify(options.policy ?? {}),
        });
        const body = (await answer.json()) as { token?: string; expiresAt?: number };
        if (!answer.ok) throw new Error(`${command}: ${answer.status} ${JSON.stringify(body)}`);
        if (!options.expired || !body.token) return body;
        // The same policy, past its expiry (as tokens get when a page stays open long).
        const db = service.context.db;
        const found = await db.findUploadTokenByHash(hashKey(body.token));
        if (!found) throw new Error('The minted token is not in the database');
        const expired = `upt_${newId()}${newId()}`;
        await db.createUploadToken({
          ...found.token,
          id: newId('upt_id_'),
          hash: hashKey(expired),
          expiresAt: Date.now() - 1,
        });
        return { ...body, token: expired, expiresAt: Date.now() - 1 };
      }
      if (command === 'filehost-device') {
        const page = (session.browser as unknown as { getPage(id: string): Page }).getPage(
          session.id,
        );
        switch (options.action) {
          case 'touch': {
            // A phone's touch screen: \`(pointer: coarse)\` matches, as on a real one.
            const cdp = await page.context().newCDPSession(page);
            await cdp.send('Emulation.setTouchEmulationEnabled', {
              enabled: options.enabled === true,
              maxTouchPoints: options.enabled === true ? 5 : 1,
            });
            return true;
          }
          case 'touches': {
            // A finger (or two) on the screen: Chromium's own touch input, which the page
            // receives as touch and pointer events (\`pointerType: 'touch'\`), as from a phone.
            const cdp = await page.context().newCDPSession(page);
            const steps = options.steps as {
              type: 'touchStart' | 'touchMove' | 'touchEnd';
              points: { x: number; y: number }[];
            }[];
            for (const { type, points } of steps) {
              await cdp.send('Input.dispatchTouchEvent', {
                type,
                touchPoints: points.map(({ x, y }, id) => ({ x, y, id })),
              });
            }
            await cdp.detach();
            return true;
          }
          case 'pick': {
            // Real files (or a real folder, for a webkitdirectory input) through the browser's
            // own file chooser path: Playwright sets them on the input inside the shadow root.
            const dir = await mkdtemp(join(tmpdir(), 'filehost-pick-'));
            const files = options.files as Record<string, string>;
            for (const [path, text] of Object.entries(files)) {
              await mkdir(dirname(join(dir, path)), { recursive: true });
              await writeFile(join(dir, path), text);
            }
            const target = options.folder
              ? join(dir, String(options.folder))
              : Object.keys(files).map((path) => join(dir, path));
            await page.locator(String(options.selector)).setInputFiles(target);
            return true;
          }
          default:
            throw new Error(`Unknown device action ${String(options.action)}`);
        }
      }
      if (command === 'filehost-network') {
        const page = (session.browser as unknown as { getPage(id: string): Page }).getPage(
          session.id,
        );
        // A regular expression over the request as `describeRequest` writes it; the test
        // runner's own traffic is never matched.
        const regex = new RegExp(typeof options.pattern === 'string' ? options.pattern : '/v1/');
        let uses = options.once ? 1 : Number.POSITIVE_INFINITY;
        let skip = Number(options.skip ?? 0);
        /**
         * Routes the requests the pattern matches (`once`: the first only; after `skip` of
         * them went on untouched) to `handle`.
         */
        const route = (handle: (route: Route) => Promise<void>) =>
          // The API's requests, and the CDN's of the services the tests run (thumbnails).
          page.route(
            (url) =>
              url.pathname.startsWith('/v1/') ||
              running.some((started) => url.origin === new URL(started.cdnUrl).origin),
            async (intercepted) => {
              if (uses <= 0 || !regex.test(describeRequest(intercepted.request()))) {
                await intercepted.fallback();
                return;
              }
              if (skip > 0) {
                skip--;
                await intercepted.fallback();
                return;
              }
              uses--;
              await handle(intercepted);
            },
          );
        switch (options.action) {
          case 'log': {
            // Every request since the previous 'log' (the first call starts recording).
            const log = requestLogs.get(page);
            if (!log) {
              const fresh: string[] = [];
              const answered: string[] = [];
              const ended: string[] = [];
              requestLogs.set(page, fresh);
              answeredLogs.set(page, answered);
              endedLogs.set(page, ended);
              const line = (request: PlaywrightRequest) =>
                `${request.method()} ${describeRequest(request)}`;
              page.on('request', (request) => fresh.push(line(request)));
              page.on('requestfinished', (request) => {
                answered.push(line(request));
                ended.push(line(request));
              });
              page.on('requestfailed', (request) => ended.push(line(request)));
              return [];
            }
            return log.splice(0, log.length);
          }
          case 'answered':
            // Every request whose answer has arrived whole since 'log' started recording
            // (a request body sent is not yet a part the service holds).
            return [...(answeredLogs.get(page) ?? [])];
          case 'ended':
            // Every request that ended since 'log' started recording: answered, or failed
            // (a request the page called off ends so, even while a route still holds it).
            return [...(endedLogs.get(page) ?? [])];
          case 'drop':
            // A real network failure in the browser: the request errors as if the link were down.
            await route((intercepted) => intercepted.abort('internetdisconnected'));
            return true;
          case 'hold': {
            // Requests stay in flight (to cancel or look at an upload mid-way) for `ms`, or
            // until 'release': a test that means "while it is held" holds for long and
            // releases, as a fixed hold may end before a loaded machine gets there.
            releasing.delete(page);
            const hold = (holds.get(page) ?? 0) + 1;
            holds.set(page, hold);
            await route(async (intercepted) => {
              // After 'release', a request that only now reaches its handler goes on at once.
              if (releasing.has(page)) {
                await intercepted.continue().catch(() => undefined);
                return;
              }
              const releases = held.get(page) ?? new Map<() => void, number>();
              held.set(page, releases);
              await new Promise<void>((resolve) => {
                const release = () => {
                  clearTimeout(timer);
                  releases.delete(release);
                  resolve();
                };
                const timer = setTimeout(release, Number(options.ms ?? 10_000));
                releases.set(release, hold);
              });
              await intercepted.continue().catch(() => undefined);
            });
            return true;
          }
          case 'together': {
            // The answers of the next `count` requests matched reach the page at once: each is
            // sent on by Playwright (beside the browser's six connections to a host) and its
            // answer held until all `count` are in, so they land together however loaded
            // the machine is (what a batching window must then gather).
            const count = Number(options.count ?? 2);
            const landing: (() => Promise<void>)[] = [];
            uses = count;
            await route(async (intercepted) => {
              const answer = await intercepted.fetch();
              landing.push(() => intercepted.fulfill({ response: answer }));
              if (landing.length === count) await Promise.all(landing.map((land) => land()));
            });
            return true;
          }
          case 'held':
            // How many requests the latest 'hold' holds now (a test that acts on one waits
            // until it is).
            return [...(held.get(page)?.values() ?? [])].filter((by) => by === holds.get(page))
              .length;
          case 'release': {
            // 'restore', and every request held so far goes on now (a restore alone leaves
            // them held for the rest of their `ms`). Each held request is sent on by its own
            // handler before the routes go ('wait'): a route removed while its handler still
            // held the request could leave that request hanging.
            releasing.add(page);
            const releases = [...(held.get(page)?.keys() ?? [])];
            for (const release of releases) release();
            await page.unrouteAll({ behavior: 'wait' });
            await throttled.get(page)?.send('Network.emulateNetworkConditions', UNTHROTTLED);
            return releases.length;
          }
          case 'refuse':
            // Answers as S3 refuses a presigned URL (an expired one, say): 403 with an XML
            // body, CORS headers included, so the page can read the status.
            await route((intercepted) =>
              intercepted.fulfill({
                status: 403,
                contentType: 'application/xml',
                headers: { 'Access-Control-Allow-Origin': origin },
                body: '<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code></Error>',
              }),
            );
            return true;
          case 'flip':
            // Bytes damaged on the way: one byte of the request body flipped, the rest sent
            // on as it was (a part PUT, for the checksum tests).
            await route(async (intercepted) => {
              const body = intercepted.request().postDataBuffer();
              if (!body || body.length === 0) {
                await intercepted.continue();
                return;
              }
              const damaged = Buffer.from(body);
              const middle = Math.floor(damaged.length / 2);
              damaged.writeUInt8(damaged.readUInt8(middle) ^ 0xff, middle);
              await intercepted.continue({ postData: damaged });
            });
            return true;
          case 'restore':
            await page.unrouteAll({ behavior: 'ignoreErrors' });
            await throttled.get(page)?.send('Network.emulateNetworkConditions', UNTHROTTLED);
            return true;
          case 'throttle': {
            // The page's uplink at `bytesPerSecond` (Chromium's network emulation), as a
            // user's link would be; 'restore' lifts it.
            let devtools = throttled.get(page);
            if (!devtools) {
              devtools = await page.context().newCDPSession(page);
              await devtools.send('Network.enable');
              throttled.set(page, devtools);
            }
            await devtools.send('Network.emulateNetworkConditions', {
              ...UNTHROTTLED,
              uploadThroughput: Number(options.bytesPerSecond),
            });
            return true;
          }
          case 'grant-clipboard':
            await page
              .context()
              .grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
            return true;
          case 'offline-for':
            // The page cannot call back while offline (this command channel is a WebSocket
            // too), so one command takes it offline, waits, and brings it back.
            await page.context().setOffline(true);
            await new Promise((resolve) => setTimeout(resolve, Number(options.ms ?? 3000)));
            await page.context().setOffline(false);
            return true;
          default:
            throw new Error(`Unknown network action ${String(options.action)}`);
        }
      }
      return undefined;
    },
  };
}

/**
 * A request as the network commands match and log it: its URL, and for a part PUT to the
 * local store's shared part URL (every part has the same one) the part it carries in its
 * headers, as `<url> [upload <id> part <n>]`.
 */
function describeRequest(request: PlaywrightRequest): string {
  const headers = request.headers();
  const upload = headers['x-filehost-upload'];
  const part = headers['x-filehost-part'];
  return upload && part ? `${request.url()} [upload ${upload} part ${part}]` : request.url();
}

/** Debian's Chromium, or `CHROME_PATH`; else Playwright's own (after `npx playwright install chromium`). */
export function chromiumPath(): string | undefined {
  const candidates = [process.env.CHROME_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((path): path is string => Boolean(path && existsSync(path)));
}

/** Flags that keep Chromium quiet on a closed network (no update checks, no sync, no sandbox as root). */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  // A camera for \`capture\` (enumerateDevices lists it); nothing is ever recorded.
  '--use-fake-device-for-media-stream',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
  '--disable-default-apps',
];
