import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { failureDigest, testCounts } from '../helpers/test-counts.js';

/**
 * `npm test`'s last line (`test/run-all.ts`) adds up what each stage's runners said: Node's
 * test runner (one summary per group of files) and @web/test-runner's progress line, colours
 * and all, as they print them.
 */
const NODE_GROUP = (pass: number, fail: number, cancelled = 0) =>
  [
    `ℹ tests ${pass + fail + cancelled}`,
    'ℹ suites 3',
    `ℹ pass ${pass}`,
    `ℹ fail ${fail}`,
    `ℹ cancelled ${cancelled}`,
    'ℹ skipped 0',
    'ℹ todo 0',
    'ℹ duration_ms 5014.6',
  ].join('\n');

describe("npm test's counts", () => {
  it("adds up every group of Node's test runner, cancelled tests as failed", () => {
    const output = `$ npx tsx test/run-node-tests.ts\n▶ a suite\n  ✔ a test (1ms)\n${NODE_GROUP(40, 1)}\n\nBy themselves: x.test.ts\n${NODE_GROUP(2, 0, 1)}\n`;
    assert.deepEqual(testCounts(output), { passed: 42, failed: 2 });
  });

  it("reads @web/test-runner's last progress line through its colours", () => {
    const line = (passed: number) =>
      `\u001b[2K\u001b[1A\u001b[2K\u001b[GChromium: |████| 3/17 test files | \u001b[32m${passed} passed\u001b[39m, \u001b[31m1 failed\u001b[39m`;
    const output = `${line(12)}\n${line(300)}\nFinished running tests in 137s\n`;
    assert.deepEqual(testCounts(output), { passed: 300, failed: 1 });
  });

  it("adds up the last progress line of each browser (the cross-browser run's four)", () => {
    const line = (browser: string, passed: number, failed: number) =>
      `\u001b[2K\u001b[G${browser}: |████| 2/2 test files | ${passed} passed, ${failed} failed`;
    const output = [
      line('Firefox ESR (light)', 5, 0),
      line('WebKitGTK (dark)', 1, 0),
      line('Firefox ESR (light)', 13, 0),
      line('Firefox ESR (dark)', 12, 1),
      line('WebKitGTK (light)', 13, 0),
      line('WebKitGTK (dark)', 13, 0),
      'Finished running tests in 49.7s with 1 failed tests.',
    ].join('\n');
    assert.deepEqual(testCounts(output), { passed: 51, failed: 1 });
  });

  it('counts nothing in a stage without tests (the linter): its exit code decides', () => {
    assert.deepEqual(testCounts('Checked 458 files in 5s. No fixes applied.\n'), {
      passed: 0,
      failed: 0,
    });
  });

  it('does not take a test named like a summary for one', () => {
    assert.deepEqual(testCounts('  ✔ prints ℹ pass 3 in its output (1ms)\n'), {
      passed: 0,
      failed: 0,
    });
  });
});

describe("npm test's failure digest (the end of its output)", () => {
  it("names each failing browser test with its error, through the runner's colours", () => {
    const output = [
      '\u001b[2K\u001b[GChromium: |████| 0/1 test files | 0 passed, 0 failed',
      'test/elements/file-uploader.test.ts:',
      '',
      ' \u001b[31m❌ <file-uploader> > completes them in batches\u001b[39m',
      '      AssertionError: expected 7 to be at most 6',
      '      + expected - actual',
      '      at n.<anonymous> (test/elements/file-uploader.test.ts:4:23)',
      '\u001b[2K\u001b[GChromium: |████| 1/1 test files | 0 passed, 1 failed',
      'Finished running tests in 1.6s with 1 failed tests.',
    ].join('\n');
    assert.deepEqual(failureDigest(output), [
      '❌ <file-uploader> > completes them in batches',
      '  AssertionError: expected 7 to be at most 6',
      '  + expected - actual',
      '  at n.<anonymous> (test/elements/file-uploader.test.ts:4:23)',
    ]);
  });

  it("gives a Node test's failure once, though the runner lists it again at the end", () => {
    const failure = (indent: string) => [
      `${indent}✖ answers 409 (12.5ms)`,
      `${indent}  AssertionError [ERR_ASSERTION]: 200 !== 409`,
    ];
    const output = [
      '▶ a suite',
      '  ✔ passes (1ms)',
      ...failure('  '),
      '  ✔ passes after (1ms)',
      '✖ a suite (20ms)',
      'ℹ fail 1',
      '✖ failing tests:',
      'test at test/x.test.ts:3:3',
      ...failure(''),
    ].join('\n');
    const digest = failureDigest(output);
    assert.deepEqual(
      digest.filter((line) => line.includes('answers 409')),
      ['✖ answers 409 (12.5ms)'],
    );
    assert.deepEqual(digest, [
      'test at test/x.test.ts:3:3',
      '✖ answers 409 (12.5ms)',
      '  AssertionError [ERR_ASSERTION]: 200 !== 409',
      '✖ a suite (20ms)',
    ]);
  });

  it('gives the last lines of a stage that failed without a failing test (the linter)', () => {
    const output = `${Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n')}\n`;
    const digest = failureDigest(output);
    assert.equal(digest.length, 20);
    assert.equal(digest.at(-1), 'line 29');
  });

  it('stays within its line budget, saying how much it left out', () => {
    const output = Array.from({ length: 50 }, (_, i) => `✖ test ${i}\n  Error ${i}`).join('\n');
    const digest = failureDigest(output, 10);
    assert.equal(digest.length, 10);
    assert.match(digest.at(-1) ?? '', /^… 91 more lines/);
  });
});
