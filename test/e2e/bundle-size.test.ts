import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { BUNDLE_BUDGET_BYTES, gzippedBytes } from '../bench/support.js';

/**
 * The script-tag bundle's size, checked on what `npm run build` just wrote. The budget is
 * 32 KiB gzipped and is NOT met yet (34.1 KiB on 2026-11-21; see the README): until it is,
 * this holds the line where it stands, so nothing makes it bigger unnoticed. Lower the
 * ceiling whenever the bundle shrinks; it ends at the budget.
 */
const CEILING_BYTES = 34.25 * 1024;

describe('the script-tag bundle (dist/filehost.js)', () => {
  it(`stays at or under ${CEILING_BYTES / 1024} KiB gzipped (budget ${BUNDLE_BUDGET_BYTES / 1024} KiB)`, async () => {
    const gzipped = gzippedBytes(await readFile('dist/filehost.js'));
    console.log(
      `dist/filehost.js: ${(gzipped / 1024).toFixed(1)} KiB gzipped; ceiling ${CEILING_BYTES / 1024}, budget ${BUNDLE_BUDGET_BYTES / 1024}`,
    );
    assert.ok(
      gzipped <= CEILING_BYTES,
      `${(gzipped / 1024).toFixed(2)} KiB gzipped is over the ${CEILING_BYTES / 1024} KiB ceiling`,
    );
  });
});
