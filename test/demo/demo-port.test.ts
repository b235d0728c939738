import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { freePort } from '../helpers/ports.js';

/**
 * `npm start -- --port N` (#53 point 5): the demo page on the port asked for, not 5173, and
 * its uploads taken there (the default project allows every loopback port); a port that is
 * not one is refused in words, with exit 2.
 */
const ROOT = resolve(import.meta.dirname, '../..');

async function env(dataDir: string): Promise<NodeJS.ProcessEnv> {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('FILEHOST_')),
  );
  return {
    ...base,
    FILEHOST_DATA_DIR: dataDir,
    FILEHOST_API_PORT: String(await freePort()),
    FILEHOST_CDN_PORT: String(await freePort()),
  };
}

describe('npm start -- --port N', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'filehost-demo-port-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('serves the demo on that port, and the page may upload from it', async () => {
    const port = await freePort();
    const child = spawn('npm', ['start', '--', '--port', String(port)], {
      cwd: ROOT,
      env: await env(join(dir, 'data')),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk;
    });
    try {
      const deadline = Date.now() + 90_000;
      while (!/Press Ctrl\+C to stop/.test(output)) {
        if (Date.now() > deadline || child.exitCode !== null) assert.fail(`not ready:\n${output}`);
        await new Promise((done) => setTimeout(done, 100));
      }
      const demo = /Demo +(\S+)/.exec(output)?.[1] ?? '';
      assert.equal(new URL(demo).port, String(port), output);
      const page = await fetch(demo);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<file-uploader/);
      const api = /API +(\S+)/.exec(output)?.[1] ?? '';
      const key = /Publishable key +(\S+)/.exec(output)?.[1] ?? '';
      const upload = await fetch(`${api}/v1/upload`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${key}`,
          Origin: new URL(demo).origin,
          'Content-Type': 'text/plain',
          'X-Filename': 'hello.txt',
        },
        body: 'hello',
      });
      assert.equal(upload.status, 201, await upload.clone().text());
    } finally {
      const exited = new Promise((done) => child.once('exit', done));
      if (child.pid && child.exitCode === null) process.kill(-child.pid, 'SIGINT');
      await exited;
    }
  });

  it('refuses a port that is not one, saying so (exit 2)', async () => {
    const failed = await promisify(execFile)('npm', ['start', '--', '--port', 'http'], {
      cwd: ROOT,
      env: await env(join(dir, 'refused')),
      timeout: 60_000,
    }).then(
      () => assert.fail('it started'),
      (error: { code: number; stderr: string }) => error,
    );
    assert.equal(failed.code, 2);
    assert.match(
      failed.stderr,
      /--port takes a port number \(0 to 65535, 0 for any free one\), not "http"/,
    );
  });
});
