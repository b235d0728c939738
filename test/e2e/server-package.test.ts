import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { addedPackages, npm, offerLocalSqliteBuild, packBoth, userEnv } from '../helpers/packs.js';

/**
 * The service's package as a backend developer meets it (#43 point 1): both tarballs of
 * `npm run pack` installed into an empty project (the service's dependencies from the
 * registry; better-sqlite3's install script given this repo's own compiled binary as a local
 * prebuild), then started with one `npx` command, which prints its keys and answers on the
 * API from its SQLite database.
 */
describe('@filehost/server installed from its tarball, started through its bin', () => {
  let project: string;
  let service: ChildProcess | undefined;
  let packs: string;
  before(async () => {
    const { widget, server, dir } = await packBoth();
    packs = dir;
    project = await mkdtemp(join(tmpdir(), 'filehost-server-app-'));
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ name: 'backend', private: true, type: 'module' }, null, 2),
    );
    // better-sqlite3's binary as the repo's own install built it (see offerLocalSqliteBuild):
    // the same compile again would be two of this test's three minutes.
    const { dependencies } = JSON.parse(await readFile('dist/server/package.json', 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const prebuilt = await offerLocalSqliteBuild(project, dependencies['better-sqlite3'] ?? '');
    const started = performance.now();
    const { stdout } = await npm(
      project,
      ['install', '--no-audit', '--no-fund', widget, server],
      600_000,
    );
    console.log(
      `filehost + @filehost/server tarballs: ${((performance.now() - started) / 1000).toFixed(1)} s, ${addedPackages(stdout)} packages added, better-sqlite3 ${prebuilt ? "from this repo's own build" : 'compiled'}`,
    );
  });
  after(async () => {
    if (service?.pid && service.exitCode === null) process.kill(-service.pid, 'SIGTERM');
    await rm(project, { recursive: true, force: true });
    await rm(packs, { recursive: true, force: true });
  });

  it('imports the contract from filehost, carrying no copy of it', async () => {
    const base = join(project, 'node_modules/@filehost/server');
    assert.ok(existsSync(join(base, 'lib/start/service.js')));
    assert.ok(!existsSync(join(base, 'lib/api/types.js')), 'a copy of the contract');
    const routes = await readFile(join(base, 'lib/api/routes/list-files.js'), 'utf8');
    assert.doesNotMatch(routes, /from '(\.\.\/)+api\//);
    assert.ok(existsSync(join(project, 'node_modules/filehost/dist/lib/api/index.js')));
  });

  it('`npx @filehost/server admin keys generate` runs the admin command', async () => {
    const { stdout } = await npm(project, [
      'exec',
      '--no',
      '--',
      'filehost-server',
      'admin',
      'keys',
      'generate',
    ]);
    assert.match(stdout, /^FILEHOST_SECRET_KEY=sk_live_[\w-]{43}$/m);
    assert.match(stdout, /^FILEHOST_PUBLISHABLE_KEY=pk_live_[\w-]{43}$/m);
  });

  it('`npx @filehost/server` starts the embedded service, prints its keys, answers GET /v1/files', async () => {
    const data = join(project, 'data');
    service = spawn('npx', ['--no', '@filehost/server'], {
      cwd: project,
      env: userEnv({
        FILEHOST_DATA_DIR: data,
        FILEHOST_API_PORT: '0',
        FILEHOST_CDN_PORT: '0',
      }),
      // Its own process group: npx and the node it starts are stopped together.
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    service.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    service.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const deadline = Date.now() + 60_000;
    while (!/Secret key\s+sk_live_/.test(output)) {
      if (Date.now() > deadline || service.exitCode !== null)
        assert.fail(`no banner from the service:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const api = /API\s+(http:\/\/\S+)/.exec(output)?.[1];
    const secret = /Secret key\s+(sk_live_\S+)/.exec(output)?.[1];
    assert.match(output, /Publishable key\s+pk_live_[\w-]+/);
    assert.ok(api && secret, output);
    assert.ok(existsSync(join(data, 'filehost.db')) || existsSync(data), 'its data dir');

    const list = await fetch(`${api}/v1/files`, { headers: { Authorization: `Bearer ${secret}` } });
    assert.equal(list.status, 200);
    assert.deepEqual(await list.json(), { files: [], nextCursor: null });
    // The OpenAPI document it serves is the widget package's (filehost/openapi.json).
    const document = (await (await fetch(`${api}/v1/openapi.json`)).json()) as { openapi: string };
    assert.match(document.openapi, /^3\.1\./);

    const pid = service.pid as number;
    // 'close': once its output ends, which is when the node that npx started has exited too.
    const exited = new Promise((resolve) => service?.once('close', resolve));
    process.kill(-pid, 'SIGTERM');
    await exited;
    assert.match(output, /filehost stopped/);
  });
});
