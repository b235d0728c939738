import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const PORTS = join(import.meta.dirname, '../helpers/ports.ts');
const TSX = join(import.meta.dirname, '../../node_modules/.bin/tsx');

/**
 * Another test process that takes `count` ports, prints them, and lives on (holding them)
 * until its standard input closes.
 */
async function portsHeldByAnotherProcess(
  count: number,
): Promise<{ child: ChildProcess; ports: number[] }> {
  const script = `import { freePort } from ${JSON.stringify(PORTS)};
(async () => {
  const ports = [];
  for (let i = 0; i < ${count}; i++) ports.push(await freePort());
  console.log(JSON.stringify(ports));
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
})();`;
  const child = spawn(TSX, ['--eval', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout?.setEncoding('utf8');
  for await (const chunk of child.stdout ?? []) {
    out += chunk;
    if (out.includes('\n')) break;
  }
  return { child, ports: JSON.parse(out.trim()) as number[] };
}

describe('the test harness hands out ports', () => {
  it('never hands the same port to two test processes alive at once', async () => {
    // 3 x 400 picks out of 10,000 ports: by chance alone, about 24 would be picked twice.
    const held = await Promise.all([400, 400, 400].map(portsHeldByAnotherProcess));
    try {
      const all = held.flatMap(({ ports }) => ports);
      assert.equal(all.length, 1200);
      assert.equal(new Set(all).size, all.length, 'a port was handed to two processes');
    } finally {
      for (const { child } of held) child.stdin?.end();
      await Promise.all(held.map(({ child }) => once(child, 'exit')));
    }
  });
});
