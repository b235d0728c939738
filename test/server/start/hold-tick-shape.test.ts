// @deployments embedded scale (no store: the same on both)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';

const moduleUrl = pathToFileURL('src/server/start/hold-tick-shape.ts').href;

/**
 * In a fresh Node process: ticks, full collections with no tick queued (as happen during the
 * service's start-up), ticks again; then the state V8 keeps for each computed key of the
 * literal `process.nextTick` builds its queue entries with (`%DebugPrint`'s feedback slots).
 */
async function literalSitesAfterCollections(hold: boolean): Promise<string[]> {
  const script = `
    ${hold ? `const { holdTickEntryShape } = await import(${JSON.stringify(moduleUrl)}); holdTickEntryShape();` : ''}
    const ticks = (n) => new Promise((done) => {
      let left = n;
      for (let i = 0; i < n; i++) process.nextTick(() => { if (--left === 0) done(); });
    });
    await ticks(1000);
    for (let i = 0; i < 3; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 5)); }
    await ticks(1000);
    new Function('f', '%DebugPrint(f)')(process.nextTick);
  `;
  // V8 prints with C's stdio, which loses output on the non-blocking pipe a Node parent
  // gives; a file takes all of it.
  const dir = await mkdtemp(join(tmpdir(), 'tick-shape-'));
  try {
    const output = join(dir, 'stdout');
    const file = await open(output, 'w');
    const child = spawn(
      process.execPath,
      [
        '--allow-natives-syntax',
        '--expose-gc',
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        script,
      ],
      { stdio: ['ignore', file.fd, 'inherit'] },
    );
    const code = await new Promise((resolve) => child.once('exit', resolve));
    await file.close();
    assert.equal(code, 0);
    return sitesIn(await readFile(output, 'utf8'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function sitesIn(stdout: string): string[] {
  return [...stdout.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map(
    (match) => match[1] ?? '',
  );
}

describe("nextTick's queue entries keep their hidden classes", () => {
  it('without the hold, a full collection between ticks leaves the literal megamorphic (the V8 behaviour worked around)', async () => {
    const sites = await literalSitesAfterCollections(false);
    assert.equal(sites.length, 4, `four computed-key sites in nextTick's literal: ${sites}`);
    assert.ok(sites.includes('MEGAMORPHIC'), `expected a megamorphic site, got ${sites}`);
  });

  it('with one entry held, every site stays monomorphic through the same collections', async () => {
    const sites = await literalSitesAfterCollections(true);
    assert.deepEqual(sites, ['MONOMORPHIC', 'MONOMORPHIC', 'MONOMORPHIC', 'MONOMORPHIC']);
  });
});
