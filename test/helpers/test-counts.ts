import { stripVTControlCharacters } from 'node:util';

/** The tests a stage's output counts: Node's test runner lines, and the browser runner's. */
export function testCounts(output: string): { passed: number; failed: number } {
  const text = stripVTControlCharacters(output);
  let passed = 0;
  let failed = 0;
  for (const [, what, count] of text.matchAll(/^ℹ (pass|fail|cancelled) (\d+)$/gm)) {
    if (what === 'pass') passed += Number(count);
    else failed += Number(count);
  }
  // @web/test-runner's progress line: "Chromium: |████| 40/40 test files | 312 passed, 0 failed",
  // one per browser (the cross-browser run has four), the last of each the final count.
  const byBrowser = new Map<string, [number, number]>();
  for (const [, name, pass, fail] of text.matchAll(
    /^([^\n|]+?):\s*\|[^\n]*test files \| (\d+) passed, (\d+) failed/gm,
  )) {
    byBrowser.set(name as string, [Number(pass), Number(fail)]);
  }
  for (const [pass, fail] of byBrowser.values()) {
    passed += pass;
    failed += fail;
  }
  return { passed, failed };
}

/** A line that says a test failed: Node's test runner's `✖`, @web/test-runner's `❌`. */
const FAILURE_LINE = /^\s*(✖|❌) /;
/** A line that starts another test's report (passed, failed or a suite's heading). */
const NEXT_REPORT = /^\s*(✔|✖|❌|▶|﹣) /;
const PROGRESS_LINE = /test files \| \d+ passed/;

/**
 * What a failed stage said of its failures, short enough for the end of `npm test`'s
 * output: a CI that keeps only the tail of a long log still shows which tests failed and
 * why. Each failing test's line with the lines of its error after it (at most `context`),
 * once each however often the runner repeats them; a stage that failed without a failing
 * test (the linter) gives its last lines. At most `maxLines` lines in all.
 */
export function failureDigest(output: string, maxLines = 60, context = 8): string[] {
  const lines = stripVTControlCharacters(output)
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line !== '' && !PROGRESS_LINE.test(line));
  // Keyed by the failure and its error, so a repeated one is given once (with its place).
  const blocks = new Map<string, string[]>();
  for (const [index, line] of lines.entries()) {
    if (!FAILURE_LINE.test(line) || line.includes('failing tests:')) continue;
    // Without the nesting's indent: the runner's closing list repeats a test less indented.
    const block = [line.trimStart()];
    for (const next of lines.slice(index + 1, index + 1 + context)) {
      if (NEXT_REPORT.test(next) || !/^\s/.test(next)) break;
      block.push(`  ${next.trimStart()}`);
    }
    // Node's closing list says where the test is, on the line before it.
    const place = lines[index - 1]?.startsWith('test at ') ? [lines[index - 1] as string] : [];
    const key = block.join('\n');
    if (!blocks.has(key) || place.length > 0) blocks.set(key, [...place, ...block]);
  }
  const digest = blocks.size > 0 ? [...blocks.values()].flat() : lines.slice(-20);
  return digest.length > maxLines
    ? [
        ...digest.slice(0, maxLines - 1),
        `… ${digest.length - maxLines + 1} more lines: see the stage's output above`,
      ]
    : digest;
}
