import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { CLAMD_LIMITS } from '../../helpers/clamd.js';

/**
 * docs/security.md gives operators the clamd limits the service expects; the tests' own
 * clamd must run with exactly those, or the scanning tests prove something else.
 */
describe("clamd's limits: the documented ones are the tests'", () => {
  it("docs/security.md's clamd.conf block is the test daemon's CLAMD_LIMITS", () => {
    const doc = readFileSync('docs/security.md', 'utf8');
    const block = /```ini\n(# clamd\.conf[^\n]*\n[\s\S]*?)```/.exec(doc)?.[1];
    assert.ok(block, 'a clamd.conf block in docs/security.md');
    const settings = block
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    assert.deepEqual(settings, [...CLAMD_LIMITS]);
    // The advice that made archive bombs worse is gone.
    assert.doesNotMatch(doc, /MaxScanSize`? at least as large/);
  });
});
