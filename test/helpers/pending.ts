import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'node:test';

/**
 * What a test process is waiting for, said when a wait runs out instead of a bare "timed
 * out": at a test's own `timeout` (`reportOnTimeout`), or when the runner stops a file
 * that ran past its timeout. The runner drops what a file prints once it stops it
 * (SIGTERM), so the report then goes to a file in this directory, which
 * `test/run-node-tests.ts` makes and prints from.
 */
export const PENDING_DIR_ENV = 'FILEHOST_TEST_PENDING_DIR';

const sources = new Set<() => string[]>();

/** Adds `describe` (a line per thing it waits for) to the report; answers its removal. */
export function reportPending(describe: () => string[]): () => void {
  sources.add(describe);
  return () => {
    sources.delete(describe);
  };
}

/** What the helpers know to be pending, and the process's open resources by kind. */
export function pendingReport(): string {
  const lines = [...sources].flatMap((describe) => describe());
  const kinds = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) {
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  }
  const resources = [...kinds].map(([kind, count]) => `${kind} ×${count}`).join(', ');
  return (lines.length > 0 ? lines : ['nothing the test helpers know of'])
    .concat(`open resources: ${resources}`)
    .map((line) => `  ${line}`)
    .join('\n');
}

/**
 * A `beforeEach` hook for tests given `timeoutMs`: one that runs out of it prints the
 * report. (A test's signal is aborted when it ends in any way; only a test that lasted its
 * whole timeout is reported.)
 */
export function reportOnTimeout(
  timeoutMs: number,
): (t: Pick<TestContext, 'name' | 'signal'>) => void {
  return (t) => {
    const startedAt = performance.now();
    t.signal.addEventListener(
      'abort',
      () => {
        if (performance.now() - startedAt < timeoutMs) return;
        console.log(`"${t.name}" ran out of its ${timeoutMs} ms; pending:\n${pendingReport()}`);
      },
      { once: true },
    );
  };
}

const directory = process.env[PENDING_DIR_ENV];
if (directory && process.env.NODE_TEST_CONTEXT) {
  process.once('SIGTERM', () => {
    try {
      const report = `${process.argv[1] ?? 'a test file'} (pid ${process.pid}):\n${pendingReport()}\n`;
      writeFileSync(join(directory, `${process.pid}.txt`), report);
    } finally {
      // Listening for SIGTERM took its default away: the file still stops.
      process.exit(1);
    }
  });
}
