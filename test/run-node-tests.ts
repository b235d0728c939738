import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Runs every Node-side test (`test/**\/*.test.ts` outside the browser folders) with Node's
 * own test runner; Node 20 cannot glob `.ts` test files by itself.
 */
const BROWSER_DIRS = new Set(['elements', 'e2e', 'bench']);

function find(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return BROWSER_DIRS.has(name) ? [] : find(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

const only = process.argv.slice(2);
const files = only.length > 0 ? only : find('test').sort();
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', ...files],
  {
    stdio: 'inherit',
    // The AWS SDK warns on Node 20 that its future versions need Node 22; ours is pinned.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...process.env },
  },
);
process.exit(result.status ?? 1);
