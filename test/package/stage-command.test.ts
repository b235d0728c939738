import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { runCommand } from '../helpers/stage-command.js';

const env = process.env;

describe("npm test's stages: a command past its ceiling", () => {
  it('answers its own exit code and output when it ends in time', async () => {
    const output = { text: '' };
    const code = await runCommand(['sh', '-c', 'echo said; exit 3'], env, output, {
      deadline: performance.now() + 30_000,
    });
    assert.equal(code, 3);
    assert.equal(output.text, 'said\n');
  });

  it('is cut, says which test file still ran, and leaves no process of it behind', async () => {
    const output = { text: '' };
    // A test file's process that never ends, under a shell, and one that ignores SIGTERM.
    const script = [
      'node -e "setInterval(() => {}, 1000)" hung-example.test.ts &',
      'sh -c \'trap "" TERM; while :; do sleep 1; done\' &',
      'echo started; wait',
    ].join('\n');
    const started = performance.now();
    const code = await runCommand(['sh', '-c', script], env, output, {
      deadline: performance.now() + 1500,
      graceMs: 1000,
    });
    const seconds = (performance.now() - started) / 1000;
    assert.equal(code, 124);
    assert.match(output.text, /^started\n/);
    assert.match(output.text, /✖ cut at the stage's ceiling: sh -c/);
    const [firstLeft] = output.text.split('\n').filter((line) => line.includes('still running'));
    assert.match(firstLeft ?? '', /still running for \d+ s: node -e .* hung-example\.test\.ts/);
    assert.ok(seconds < 10, `ended ${seconds.toFixed(1)} s after it started`);
    const pids = [...output.text.matchAll(/still running/g)].length;
    assert.ok(pids >= 3, output.text);
    const left = execFileSync('ps', ['-e', '-o', 'pid=,args='], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => line.includes('hung-example.test.ts') || line.includes('trap "" TERM'));
    assert.deepEqual(left, []);
  });
});
