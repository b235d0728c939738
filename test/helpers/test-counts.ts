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
