import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';

/**
 * The service's and the admin command's help (#53 point 5): `--help` and `-h` print it and
 * exit 0 without starting anything or creating a data dir; a stray argument is refused with
 * exit 2; the commands named in it are the ones the user started with (`npm run …` in this
 * repository, `npx @filehost/server …` from the package; the installed package's own bin is
 * asked in test/e2e/server-package.test.ts).
 */
const run = promisify(execFile);

/** The environment of a command: as npm runs a script (`script`) or as npx runs the bin. */
function envOf(dataDir: string, script?: string): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')),
  );
  return {
    ...env,
    FILEHOST_DATA_DIR: dataDir,
    FILEHOST_API_PORT: '0',
    FILEHOST_CDN_PORT: '0',
    ...(script ? { npm_lifecycle_event: script } : { npm_lifecycle_event: 'npx' }),
  };
}

async function command(
  entry: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(process.execPath, ['--import', 'tsx', entry, ...args], { env, timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string; killed?: boolean }) => {
      // Killed by the timeout: it started a service instead of answering.
      assert.ok(!error.killed, `${entry} ${args.join(' ')} did not exit:\n${error.stdout}`);
      return error;
    },
  );
}

describe('the service command and the admin command: --help', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'filehost-help-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  for (const flag of ['--help', '-h', 'help']) {
    it(`the service command with ${flag} prints its help and exits 0, starting nothing`, async () => {
      const dataDir = join(dir, `server${flag}`);
      const { code, stdout } = await command('src/server/start/main.ts', [flag], envOf(dataDir));
      assert.equal(code, 0);
      assert.match(stdout, /^Usage: npx @filehost\/server \[--help\]$/m);
      assert.match(stdout, /FILEHOST_API_PORT/);
      assert.match(stdout, /npx @filehost\/server admin --help/);
      assert.doesNotMatch(stdout, /Secret key|filehost is ready/);
      assert.equal(await readdir(dataDir).catch(() => null), null, 'a data dir was made');
    });
  }

  it('the service command refuses an argument it does not take (exit 2, with the help)', async () => {
    const { code, stderr } = await command(
      'src/server/start/main.ts',
      ['--port', '3000'],
      envOf(join(dir, 'stray')),
    );
    assert.equal(code, 2);
    assert.match(stderr, /Unknown argument: --port\. .*FILEHOST_\* variables/);
    assert.match(stderr, /Usage: /);
  });

  it('run as `npm run server`, its help names the repository scripts', async () => {
    const { stdout } = await command(
      'src/server/start/main.ts',
      ['--help'],
      envOf(join(dir, 'npm-server'), 'server'),
    );
    assert.match(stdout, /^Usage: npm run server \[--help\]$/m);
    assert.match(stdout, /npm run admin -- --help/);
  });

  for (const flag of ['--help', '-h', 'help']) {
    it(`the admin command's help (${flag}) tells npx users the npx command, opening no database`, async () => {
      const dataDir = join(dir, `admin${flag}`);
      const { code, stdout } = await command('src/server/cli.ts', [flag], envOf(dataDir));
      assert.equal(code, 0);
      assert.match(stdout, /^ {2}npx @filehost\/server admin projects create --name NAME/m);
      assert.doesNotMatch(stdout, /npm run admin/);
      assert.equal(await readdir(dataDir).catch(() => null), null, 'a data dir was made');
    });
  }

  it("the admin command's help under `npm run admin` names `npm run admin --`", async () => {
    const { stdout } = await command(
      'src/server/cli.ts',
      ['--help'],
      envOf(join(dir, 'npm-admin'), 'admin'),
    );
    assert.match(stdout, /^ {2}npm run admin -- keys create PROJECT_ID/m);
    assert.doesNotMatch(stdout, /npx/);
  });
});
