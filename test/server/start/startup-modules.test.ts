import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { serviceEntry } from '../../helpers/service.js';

/**
 * Node's module hooks, in their own thread: every module loaded is named on stderr. Passed
 * as a data: URL, so that the service starts exactly as `npm run server` starts it.
 */
const LOGGING_HOOKS = `data:text/javascript,${encodeURIComponent(
  "export async function load(url, context, next) { process.stderr.write('LOADED ' + url + '\\n'); return next(url, context); }",
)}`;
const REGISTER = `data:text/javascript,${encodeURIComponent(
  `import { register } from 'node:module'; register(${JSON.stringify(LOGGING_HOOKS)});`,
)}`;

/** The modules the embedded service loads until it is ready (its banner's secret key). */
async function modulesLoadedAtStart(): Promise<string[]> {
  const dataDir = await mkdtemp(join(tmpdir(), 'filehost-startup-modules-'));
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', REGISTER, serviceEntry()], {
    env: {
      ...process.env,
      FILEHOST_API_PORT: '0',
      FILEHOST_CDN_PORT: '0',
      FILEHOST_LOG_LEVEL: 'warn',
      FILEHOST_DATA_DIR: dataDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let loaded = '';
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk;
        if (/Secret key\s+\S+/.test(output)) resolve();
      });
      child.stderr.on('data', (chunk: Buffer) => {
        loaded += chunk;
      });
      child.once('exit', (code) => reject(new Error(`exited (${code}):\n${output}${loaded}`)));
    });
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    await rm(dataDir, { recursive: true, force: true });
  }
  return [...loaded.matchAll(/^LOADED (\S+)$/gm)].map((match) => match[1] as string);
}

describe("what the service loads to start (its start-up time's share)", () => {
  it('checks requests against the generated contract: no TypeBox, no declarations, no Ajv until a body is checked', async () => {
    const loaded = await modulesLoadedAtStart();
    assert.ok(
      loaded.some((url) => url.endsWith('/src/api/openapi.json')),
      'the generated document is what it reads',
    );
    assert.ok(loaded.length > 50, `${loaded.length} modules: the hooks saw the start-up`);
    const authoring = loaded.filter((url) =>
      /\/node_modules\/(@sinclair\/typebox|ajv|ajv-formats)\/|\/schemas\/(paths|components|document|kit)\.ts$/.test(
        url,
      ),
    );
    assert.deepEqual(authoring, []);
  });
});
