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
  // @web/test-runner's progress line: "Chromium: |████| 40/40 test files | 312 passed, 0 failed".
  const browser = [...text.matchAll(/test files \| (\d+) passed, (\d+) failed/g)].at(-1);
  if (browser) {
    passed += Number(browser[1]);
    failed += Number(browser[2]);
  }
  return { passed, failed };
}
