import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it, mock } from 'node:test';
import { prettierBytes } from '../../src/bundle-shims/prettier-bytes.js';
import throttle from '../../src/bundle-shims/throttle.js';
import { bundleShims } from '../../vite.config.js';

// Uppy's own lodash (it ships no types; this is the signature Uppy calls).
const lodashThrottle = createRequire(import.meta.url)('lodash/throttle.js') as <
  A extends unknown[],
>(
  run: (...args: A) => void,
  waitMs: number,
  options: { leading: boolean; trailing: boolean },
) => (...args: A) => void;

/**
 * The script-tag bundle replaces three of Uppy's modules (vite.config.ts). Each shim
 * must behave as the original does for the way Uppy calls it.
 */
describe('the script-tag bundle shims', () => {
  it('replace exactly the modules Uppy imports by those names', async () => {
    const { readFile } = await import('node:fs/promises');
    const uppy = await readFile('node_modules/@uppy/core/lib/Uppy.js', 'utf8');
    const restricter = await readFile('node_modules/@uppy/core/lib/Restricter.js', 'utf8');
    assert.match(uppy, /import throttle from 'lodash\/throttle\.js'/);
    assert.match(uppy, /= throttle\(.*, 500, \{ leading: true, trailing: true \}\)/);
    assert.match(restricter, /import \{ prettierBytes \} from '@transloadit\/prettier-bytes'/);
    assert.match(uppy, /import supportsUploadProgress from '\.\/supportsUploadProgress\.js'/);
    assert.deepEqual(Object.keys(bundleShims).sort(), [
      './supportsUploadProgress.js',
      '@transloadit/prettier-bytes',
      'lodash/throttle.js',
    ]);
  });

  it('throttle calls back when and with what lodash does (leading and trailing, 500 ms)', () => {
    mock.timers.enable({ apis: ['setTimeout', 'Date'] });
    try {
      // The same schedule of calls through both; each records (time, argument) per call.
      const run = (make: (fn: (n: number) => void) => (n: number) => void) => {
        const calls: [number, number][] = [];
        const start = Date.now();
        const throttled = make((n) => calls.push([Date.now() - start, n]));
        const schedule = [0, 10, 20, 499, 600, 1200, 1250, 3000, 3001, 3400, 5000];
        // A millisecond at a time, so each timer sees the clock it was set for.
        for (let time = 0; time <= 6000; time++) {
          const index = schedule.indexOf(time);
          if (index >= 0) throttled(index);
          mock.timers.tick(1);
        }
        return calls;
      };
      const ours = run((fn) => throttle(fn, 500));
      mock.timers.reset();
      mock.timers.enable({ apis: ['setTimeout', 'Date'] });
      const theirs = run((fn) => lodashThrottle(fn, 500, { leading: true, trailing: true }));
      assert.deepEqual(ours, theirs);
      // And what that is, spelled out: at once; the latest call of a wait at its end; at
      // once again after a quiet wait.
      assert.deepEqual(ours, [
        [0, 0],
        [500, 3],
        [1100, 4],
        [1200, 5],
        [1700, 6],
        [3000, 7],
        [3500, 9],
        [5000, 10],
      ]);
    } finally {
      mock.timers.reset();
    }
  });

  it('prettierBytes gives a size in words, as the original does', () => {
    assert.equal(prettierBytes(1_500_000), '1.5 MB');
    assert.equal(prettierBytes(999), '999 B');
  });
});
