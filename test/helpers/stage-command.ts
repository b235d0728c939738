import { type ChildProcess, spawn } from 'node:child_process';
import { descendants, treeOf } from './process-tree.js';

/** Where a command is cut. */
export interface Ceiling {
  /** A `performance.now()` time. */
  deadline: number;
  /** After SIGTERM, how long its processes get to end before SIGKILL, ms. */
  graceMs?: number;
}

/** The commands under way (each leads its process group), for Ctrl-C to reach. */
const running = new Set<ChildProcess>();

/**
 * Runs one command, its output (stdout and stderr as they interleave) added to `output`.
 * Past its ceiling it is cut: what it was still running is
 * written to `output` as a failure, then its processes get SIGTERM and, after a grace,
 * SIGKILL; it answers 124 (timeout(1)'s code).
 */
export function runCommand(
  command: string[],
  env: NodeJS.ProcessEnv,
  output: { text: string } | null,
  ceiling?: Ceiling,
): Promise<number> {
  const graceMs = ceiling?.graceMs ?? 15_000;
  const [file = '', ...args] = command;
  const child = spawn(file, args, {
    env,
    stdio: output ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    // Its own process group: a cut reaches every process under it, the test files' too.
    detached: output !== null,
  });
  running.add(child);
  const collect = (chunk: Buffer) => {
    if (output) output.text += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  let cut = false;
  const timer =
    ceiling && output
      ? setTimeout(
          () => {
            cut = true;
            output.text += describeCut(command, child.pid);
            stopTree(child.pid, graceMs);
            // A process that left the group and holds the output open must not hold the run.
            setTimeout(() => {
              child.stdout?.destroy();
              child.stderr?.destroy();
            }, graceMs * 2).unref();
          },
          Math.max(0, ceiling.deadline - performance.now()),
        )
      : undefined;
  return new Promise((resolve) => {
    child.once('error', (error) => {
      if (output) output.text += `${command.join(' ')}: ${error.message}\n`;
      resolve(1);
    });
    child.once('close', (code) => resolve(cut ? 124 : (code ?? 1)));
  }).finally(() => {
    clearTimeout(timer);
    running.delete(child);
  }) as Promise<number>;
}

/** A cut command's failure line, and what it was still running (a hung test names its file). */
function describeCut(command: string[], pid: number | undefined): string {
  const under = pid === undefined ? [] : descendants(pid);
  const lines = under.map(
    (each) => `  still running for ${each.seconds} s: ${each.command.slice(0, 300)}`,
  );
  // Test files first: they say which test hung; the servers and browsers they started after.
  lines.sort((a, b) => Number(b.includes('.test.')) - Number(a.includes('.test.')));
  return `\n✖ cut at the stage's ceiling: ${command.join(' ')}\n${lines.join('\n')}\n`;
}

/** SIGTERM to a command's process group and everything under it, SIGKILL after the grace. */
function stopTree(pid: number | undefined, graceMs: number): void {
  if (pid === undefined) return;
  // A test's service may lead a group of its own: each process is sent the signal too.
  const pids = [pid, ...treeOf(pid).map((each) => each.pid)];
  const signal = (name: NodeJS.Signals) => {
    for (const target of [-pid, ...pids]) {
      try {
        process.kill(target, name);
      } catch {
        // Gone already.
      }
    }
  };
  signal('SIGTERM');
  setTimeout(() => signal('SIGKILL'), graceMs).unref();
}

/** Passes a signal (Ctrl-C's) on to every command under way. */
export function signalAll(signal: NodeJS.Signals): void {
  for (const child of running) {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  }
}
