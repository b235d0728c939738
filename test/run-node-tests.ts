import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Runs Node-side tests with Node's own test runner (Node 20 cannot glob `.ts` test files by
 * itself). Arguments are test files or folders; none: every `test/**\/*.test.ts` outside the
 * browser folders.
 *
 * `--scale`: only the files that run on the scale deployment too, which say so themselves
 * with the tag `SCALE_TAG` in a comment, run with `FILEHOST_TEST_DEPLOYMENT=scale`
 * (PostgreSQL and S3; see `helpers/scale-mode.ts`). The list lives in the test files, so
 * a new scale-capable suite is one line in the suite, not one more name in package.json.
 */
const BROWSER_DIRS = new Set(['elements', 'e2e', 'bench']);

/** The tag of a test file that also runs on the scale deployment. */
const SCALE_TAG = '@deployments embedded scale';

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
const named = args.filter((arg) => arg !== '--scale');
let files = (named.length > 0 ? named : ['test'])
  .flatMap((path) => (statSync(path).isDirectory() ? find(path, named.length === 0) : [path]))
  .sort();
if (scale) files = files.filter((file) => readFileSync(file, 'utf8').includes(SCALE_TAG));
if (files.length === 0) {
  console.error(`No test files${scale ? ` tagged "${SCALE_TAG}"` : ''} in ${named.join(' ')}`);
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', ...files],
  {
    stdio: 'inherit',
    env: {
      // The AWS SDK warns on Node 20 that its future versions need Node 22; ours is pinned.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...process.env,
      ...(scale ? { FILEHOST_TEST_DEPLOYMENT: 'scale' } : {}),
    },
  },
);
process.exit(result.status ?? 1);
