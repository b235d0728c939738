import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PENDING_DIR_ENV } from './helpers/pending.js';

/**
 * Runs Node-side tests with Node's own test runner (Node 20 cannot glob `.ts` test files by
 * itself). Arguments are test files or folders; none: every `test/**\/*.test.ts` outside the
 * browser folders.
 *
 * `--not-alone` leaves out the files tagged `ALONE_TAG`, `--only-alone` runs only them: the
 * way `run-all.ts`, which runs several stages side by side, runs those files after every
 * stage has ended, by themselves.
 *
 * `--node24`: only the files that say they run on Node 24 too, with the tag `NODE_24_TAG`
 * (pure JavaScript: the typed client's own logic, the widget package's entry points), run
 * by Node 24 from the npm registry (`helpers/node24.ts`) instead of this Node. The service's
 * native SQLite driver cannot be built for it here, so a file that starts a service in its
 * own process is not one of them.
 *
 * `--test-name-pattern=<regex>` (as often as wanted) runs only the tests it names, as Node's
 * own option does.
 *
 * `--scale`: only the files that run on the scale deployment too, which say so themselves
 * with the tag `SCALE_TAG` in a comment, run with `FILEHOST_TEST_DEPLOYMENT=scale`
 * (PostgreSQL and S3; see `helpers/scale-mode.ts`). The list lives in the test files, so
 * a new scale-capable suite is one line in the suite, not one more name in package.json.
 *
 * Test files run `JOBS` at a time (`FILEHOST_TEST_JOBS`, default 2): most of a file's time
 * is spent waiting (for its service, a child process, PostgreSQL, RGW, Chromium, npm), not
 * computing. Each file is a process of its own, with its own service on ports the kernel
 * picks and its own temp dirs; Node prints each file's results together once it is done.
 * A file that cannot share the machine with another (a fixed port, a timing that a busy
 * second process would break) carries the tag `ALONE_TAG` with its reason, and runs after
 * the others, by itself.
 *
 * PostgreSQL and RGW are started once here when the run needs them (`--scale`, or a file
 * that imports `helpers/scale.js`) and shared by every file (`helpers/scale.ts`: each
 * service gets a fresh database and bucket, as before); a Ceph boot per file cost more than
 * many of the files' tests.
 *
 * A file stopped at the timeout says what it was still waiting for (`helpers/pending.ts`:
 * the test services' unanswered calls, a start or a close under way, the open resources),
 * printed here after the run.
 */
const BROWSER_DIRS = new Set(['elements', 'e2e', 'bench']);

/** The tag of a test file that also runs on the scale deployment. */
const SCALE_TAG = '@deployments embedded scale';
/** The tag of a test file that also runs on Node 24. */
const NODE_24_TAG = '@also-on-node-24';
/** The tag of a test file that must run with no other test file beside it. */
const ALONE_TAG = '@runs-alone';
/** A test file that uses PostgreSQL and RGW in the embedded run too. */
const USES_SCALE_SERVERS = /from '(\.\.\/)+helpers\/scale\.js'/;

/** The longest a Node test may take by default: five times the slowest suite on a quiet CI. */
const TEST_TIMEOUT_MS = 600_000;

const JOBS = Math.max(1, Number(process.env.FILEHOST_TEST_JOBS ?? 2) || 1);

function find(dir: string, skipBrowserDirs: boolean): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      return skipBrowserDirs && BROWSER_DIRS.has(name) ? [] : find(path, skipBrowserDirs);
    }
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

const args = process.argv.slice(2);
const scale = args.includes('--scale');
const onNode24 = args.includes('--node24');
const notAlone = args.includes('--not-alone');
const onlyAlone = args.includes('--only-alone');
const FLAGS = new Set(['--scale', '--node24', '--not-alone', '--only-alone']);
/** `--test-name-pattern=…`, handed to Node's runner: some tests of the files only. */
const PATTERN = '--test-name-pattern=';
const patterns = args.filter((arg) => arg.startsWith(PATTERN));
const named = args.filter((arg) => !FLAGS.has(arg) && !arg.startsWith(PATTERN));
let files = (named.length > 0 ? named : ['test'])
  .flatMap((path) => (statSync(path).isDirectory() ? find(path, named.length === 0) : [path]))
  .sort();
const sources = new Map(files.map((file) => [file, readFileSync(file, 'utf8')]));
const tags = [...(scale ? [SCALE_TAG] : []), ...(onNode24 ? [NODE_24_TAG] : [])];
files = files.filter((file) => tags.every((tag) => sources.get(file)?.includes(tag)));
const isAlone = (file: string) => sources.get(file)?.includes(ALONE_TAG) ?? false;
if (notAlone) files = files.filter((file) => !isAlone(file));
if (onlyAlone) files = files.filter(isAlone);
if (files.length === 0 && onlyAlone) {
  console.log(`No test files tagged "${ALONE_TAG}" in ${named.join(' ') || 'test'}`);
  process.exit(0);
}
if (files.length === 0) {
  const tagged = tags.map((tag) => ` tagged "${tag}"`).join(' and');
  console.error(`No test files${tagged} in ${named.join(' ') || 'test'}`);
  process.exit(1);
}
/** The Node that runs the test files: this one, or Node 24 from the registry. */
const node = onNode24 ? await (await import('./helpers/node24.js')).node24() : process.execPath;
if (onNode24) console.log(`Node 24 (${node}): ${files.join(' ')}`);
const alone = files.filter(isAlone);
const together = files.filter((file) => !alone.includes(file));

// The AWS SDK warns on Node 20 that its future versions need Node 22; ours is pinned.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const pendingDir = mkdtempSync(join(tmpdir(), 'filehost-pending-'));
const env: NodeJS.ProcessEnv = {
  ...process.env,
  ...(scale ? { FILEHOST_TEST_DEPLOYMENT: 'scale' } : {}),
  [PENDING_DIR_ENV]: pendingDir,
};
let stopShared = async () => {};
const needsServers =
  scale || files.some((file) => USES_SCALE_SERVERS.test(sources.get(file) ?? ''));
// Loaded only when needed: the AWS SDK and pg cost a second at start-up.
const { SHARED_SERVERS_ENV, startSharedServers } = needsServers
  ? await import('./helpers/scale.js')
  : { SHARED_SERVERS_ENV: '', startSharedServers: null };
if (startSharedServers && !process.env[SHARED_SERVERS_ENV]) {
  const started = performance.now();
  // Missing servers, or a boot that failed: each file decides for itself, as it would alone
  // (skip, or fail with its own boot's words, or under CI).
  const shared = await startSharedServers().catch((error: Error) => {
    console.warn(`PostgreSQL and RGW did not start for this run: ${error.message}`);
    return { skip: error.message };
  });
  if (!('skip' in shared)) {
    Object.assign(env, shared.env);
    stopShared = shared.stop;
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`PostgreSQL and RGW started for this run in ${seconds} s`);
  }
}

/** One `node --test` over `group`, `concurrency` files at a time; answers its exit code. */
function runGroup(group: string[], concurrency: number): Promise<number> {
  if (group.length === 0) return Promise.resolve(0);
  const child = spawn(
    node,
    [
      '--import',
      'tsx',
      '--test',
      `--test-concurrency=${concurrency}`,
      // A test that hangs fails with its name after this (unless it sets a timeout of its
      // own), and the others go on; a hook that hangs is left to npm test's stage ceiling.
      `--test-timeout=${TEST_TIMEOUT_MS}`,
      '--test-reporter=spec',
      ...patterns,
      ...group,
    ],
    { stdio: 'inherit', env },
  );
  return new Promise((resolve) => child.once('close', (code) => resolve(code ?? 1)));
}

// Ctrl-C reaches the test processes through the terminal; this one waits for them to end,
// then stops the shared servers.
process.on('SIGINT', () => {});
let status = 1;
try {
  const shared = await runGroup(together, JOBS);
  if (alone.length > 0) console.log(`\nBy themselves (${ALONE_TAG}): ${alone.join(' ')}`);
  const single = await runGroup(alone, 1);
  status = shared || single;
} finally {
  await stopShared();
  for (const name of readdirSync(pendingDir)) {
    const report = readFileSync(join(pendingDir, name), 'utf8');
    console.log(`\nStopped at the timeout, ${report}`);
  }
  rmSync(pendingDir, { recursive: true, force: true });
}
process.exit(status);
