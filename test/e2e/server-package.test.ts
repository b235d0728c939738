import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { type CodeBlock, codeBlocks } from '../helpers/markdown.js';
import { addedPackages, npm, offerLocalSqliteBuild, userEnv } from '../helpers/packs.js';

/**
 * The README's install path as a newcomer follows it today (#53 point 1, #43 point 1): its
 * section "Install in your app" run as written. `npm run pack` packs both packages into
 * `dist/packs/` (its build step was done by `npm run test:e2e`; the rest of the script runs
 * here, so a change to where it packs or what it names fails); then in an empty project,
 * the README's install commands with `/path/to/filehost` replaced by this repository: the
 * widget's tarball alone, then both tarballs together (the service's dependencies from the
 * registry; better-sqlite3's install script given this repo's own compiled binary as a local
 * prebuild), then `npx @filehost/server`, which prints its keys and answers on the API from
 * its SQLite database. Its `--help` and the admin command are asked through the same bin.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const SECTION = 'Install in your app';
const PLACEHOLDER = '/path/to/filehost';
const exec = promisify(execFile);

const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** A shell block's commands, one a line, comments and blank lines dropped. */
function commands(block: CodeBlock): string[] {
  return block.text
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

const SHELL_TIMEOUT_MS = 1_200_000;

/** Runs one of the README's commands with bash in `cwd`, as a user's shell would. */
async function shell(cwd: string, command: string): Promise<string> {
  try {
    const { stdout, stderr } = await exec('bash', ['-c', command], {
      cwd,
      env: userEnv(),
      // `npm install` of the tarballs compiles the SQLite driver from source: under CI's load
      // (every stage side by side on two cores, load 35-40) it outlasted 10 minutes.
      timeout: SHELL_TIMEOUT_MS,
      maxBuffer: 64 * 1024 * 1024,
    });
    return `${stdout}${stderr}`;
  } catch (error) {
    const {
      stdout = '',
      stderr = '',
      killed,
      signal,
    } = error as { stdout?: string; stderr?: string; killed?: boolean; signal?: string };
    // Stopped by the timeout, a command says nothing of why: the message does.
    const why = killed ? ` (stopped by ${signal} after ${SHELL_TIMEOUT_MS / 1000} s)` : '';
    throw new Error(`\`${command}\` failed in ${cwd}${why}:\n${stdout}\n${stderr}`);
  }
}

describe('README: the install path from this repository (npm run pack, then the tarballs)', () => {
  const blocks = codeBlocks(ROOT, 'README.md').filter(
    (block) => block.section === SECTION && block.language === 'sh',
  );
  const runnable = blocks.filter((block) => block.flags !== 'not-run').map(commands);
  let project: string;
  let service: ChildProcess | undefined;
  let widgetAlone: string[] = [];

  before(async () => {
    assert.deepEqual(runnable[0], ['npm run pack'], 'the section opens with `npm run pack`');
    const [, widgetInstall = [], serverInstall = []] = runnable;
    assert.equal(widgetInstall.length, 1, 'one command installs the widget');
    assert.match(
      serverInstall[0] ?? '',
      /^npm install \S+filehost-0\.1\.0\.tgz \S+filehost-server-0\.1\.0\.tgz$/,
    );
    assert.equal(serverInstall[1], 'npx @filehost/server');

    // `npm run pack` without its first step (the build, which test:e2e has just made).
    const build = 'npm run -s build && ';
    const pack = pkg.scripts.pack ?? '';
    assert.ok(pack.startsWith(build), pack);
    await rm(join(ROOT, 'dist/packs'), { recursive: true, force: true });
    await shell(ROOT, pack.slice(build.length));

    project = await mkdtemp(join(tmpdir(), 'filehost-readme-install-'));
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ name: 'my-app', private: true, type: 'module' }, null, 2),
    );
    const asWritten = (command: string) => command.replaceAll(PLACEHOLDER, ROOT);
    await shell(project, asWritten(widgetInstall[0] ?? ''));
    widgetAlone = (await shell(project, 'ls node_modules node_modules/@filehost 2>/dev/null; true'))
      .split(/\s+/)
      .filter(Boolean);

    // better-sqlite3's binary as the repo's own install built it (see offerLocalSqliteBuild):
    // the same compile again would be two of this test's three minutes.
    const { dependencies } = JSON.parse(await readFile('dist/server/package.json', 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const prebuilt = await offerLocalSqliteBuild(project, dependencies['better-sqlite3'] ?? '');
    const started = performance.now();
    const output = await shell(project, asWritten(serverInstall[0] ?? ''));
    console.log(
      `filehost + @filehost/server tarballs: ${((performance.now() - started) / 1000).toFixed(1)} s, ${addedPackages(output)} packages added, better-sqlite3 ${prebuilt ? "from this repo's own build" : 'compiled'}`,
    );
  });
  after(async () => {
    if (service?.pid && service.exitCode === null) process.kill(-service.pid, 'SIGTERM');
    if (project) await rm(project, { recursive: true, force: true });
  });

  it('says which install works today, and fences the registry command as not yet working', () => {
    const registry = blocks.find((block) => block.flags === 'not-run');
    assert.ok(registry, 'the registry command is shown');
    assert.match(registry.text, /^# Not run: neither package is published yet/);
    assert.deepEqual(commands(registry), ['npm install filehost', 'npm install @filehost/server']);
  });

  it('`npm run pack` writes the two tarballs the README names', () => {
    const readme = blocks.map((block) => block.text).join('\n');
    const named = [...readme.matchAll(/dist\/packs\/([\w.-]+\.tgz)/g)].map((match) => match[1]);
    assert.deepEqual([...new Set(named)].sort(), [
      'filehost-0.1.0.tgz',
      'filehost-server-0.1.0.tgz',
    ]);
    for (const name of named) assert.ok(existsSync(join(ROOT, 'dist/packs', name ?? '')), name);
  });

  it("the widget's tarball installs alone, without the service or an optional peer", () => {
    assert.ok(widgetAlone.includes('filehost'), widgetAlone.join(' '));
    for (const name of ['@filehost', 'server', 'better-sqlite3', 'fastify', 'standardwebhooks'])
      assert.ok(!widgetAlone.includes(name), `${name} came with the widget`);
  });

  it('imports the contract from filehost, carrying no copy of it', async () => {
    const base = join(project, 'node_modules/@filehost/server');
    assert.ok(existsSync(join(base, 'lib/start/service.js')));
    assert.ok(!existsSync(join(base, 'lib/api/types.js')), 'a copy of the contract');
    const routes = await readFile(join(base, 'lib/api/routes/list-files.js'), 'utf8');
    assert.doesNotMatch(routes, /from '(\.\.\/)+api\//);
    assert.ok(existsSync(join(project, 'node_modules/filehost/dist/lib/api/index.js')));
  });

  it("runs the ExifTool that ends with a killed service: its own exiftool-vendored.pl, not exiftool-vendored's", async () => {
    // What `createRequire` finds from the service's code (strip-location.ts) in a consumer's
    // tree, where this repository's `overrides` do not apply (test/server/faults/killed-exiftool).
    const { stdout } = await exec(
      process.execPath,
      [
        '-e',
        "const { createRequire } = require('node:module'); const here = createRequire(require.resolve('@filehost/server/package.json')); console.log(here('exiftool-vendored.pl/package.json').version)",
      ],
      { cwd: project },
    );
    assert.equal(stdout.trim(), pkg.devDependencies['exiftool-vendored.pl']);
  });

  for (const flag of ['--help', '-h']) {
    it(`\`npx @filehost/server ${flag}\` prints the help and exits 0, starting nothing`, async () => {
      const output = await shell(project, `npx @filehost/server ${flag}`);
      assert.match(output, /^Usage: npx @filehost\/server \[--help\]$/m);
      assert.match(output, /npx @filehost\/server admin --help/);
      assert.doesNotMatch(output, /Secret key|filehost is ready/);
      assert.ok(!existsSync(join(project, '.filehost')), 'it made a data dir');
    });
  }

  it('`npx @filehost/server admin --help` names the npx command, not `npm run admin --`', async () => {
    const output = await shell(project, 'npx @filehost/server admin --help');
    assert.match(output, /^ {2}npx @filehost\/server admin keys generate$/m);
    assert.doesNotMatch(output, /npm run admin/);
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
    // The README's command as written; its ports and data dir by the variables it reads.
    service = spawn('bash', ['-c', 'npx @filehost/server'], {
      cwd: project,
      env: userEnv({
        FILEHOST_DATA_DIR: data,
        FILEHOST_API_PORT: '0',
        FILEHOST_CDN_PORT: '0',
        // The metrics port's worker thread, a module of its own in the compiled package.
        FILEHOST_METRICS_PORT: '0',
      }),
      // Its own process group: bash, npx and the node it starts are stopped together.
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

    const metrics = /Metrics\s+(http:\/\/\S+)/.exec(output)?.[1];
    assert.ok(metrics, output);
    const scrape = await fetch(metrics);
    assert.equal(scrape.status, 200);
    assert.match(
      await scrape.text(),
      /^filehost_http_requests_total\{server="api",route="\/v1\/files"/m,
    );

    const pid = service.pid as number;
    // 'close': once its output ends, which is when the node that npx started has exited too.
    const exited = new Promise((resolve) => service?.once('close', resolve));
    process.kill(-pid, 'SIGTERM');
    await exited;
    assert.match(output, /filehost stopped/);
  });
});
