import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { type CodeBlock, codeBlocks } from '../helpers/markdown.js';
import { freePort } from '../helpers/ports.js';

/**
 * The README's shell commands, run as a newcomer runs them: `npm start` and `npm run server`
 * are started in this repository as written (their own ports and data dir), and the backend
 * quick start's commands run, in order, in bash against the service `npm run server`
 * started, with the API address and secret key it printed. Every command in a shell block
 * must be one this test runs or checks; a block that cannot run yet is fenced
 * ` ```sh not-run ` and says why on its first line.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const SHELL = new Set(['sh', 'shell', 'bash', 'console']);
/** The backend quick start, and its upload-token part (a section of its own). */
const BACKEND_SECTIONS = new Set(['Five minutes: a backend', 'Who may upload']);

const pkg = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  scripts: Record<string, string>;
};
const blocks = codeBlocks(ROOT, 'README.md');
const shellBlocks = blocks.filter((block) => SHELL.has(block.language));

/** A block's commands: continued lines joined, comments and blank lines dropped. */
function commands(block: CodeBlock): string[] {
  return block.text
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .flatMap((line) => line.split(/\s+&&\s+/));
}

/** The README's install path, run in a scratch app by test/e2e/server-package.test.ts. */
const INSTALL_SECTION = 'Install in your app';

/** Why a command is fine, or `null` when this test neither runs nor checks it. */
function known(command: string, block: CodeBlock): string | null {
  if (block.section === INSTALL_SECTION) return 'run by test/e2e/server-package.test.ts';
  if (command === 'npm install') return 'the lockfile install every test starts from';
  const install = /^npm install (\S+)$/.exec(command);
  if (install) return install[1] === pkg.name ? 'the package this repository makes' : null;
  if (command === 'npm start' || command === 'npm test') {
    return pkg.scripts[command.slice(4)] ? 'a script' : null;
  }
  const script = /^npm run (\S+)/.exec(command);
  if (script) return pkg.scripts[script[1] ?? ''] ? 'a script' : null;
  if (BACKEND_SECTIONS.has(block.section) && /^(export \w+=|\w+=\$\(curl |curl )/.test(command)) {
    return 'run against the service';
  }
  return null;
}

interface Started {
  child: ChildProcess;
  output: () => string;
}

/** Starts `npm <args>` in the repository, in its own process group, and waits for `ready`. */
async function startNpm(args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<Started> {
  const child = spawn('npm', args, { cwd: ROOT, env, detached: true, stdio: 'pipe' });
  let text = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  await new Promise<void>((resolveReady, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`npm ${args.join(' ')}: not ready:\n${text}`)),
      60_000,
    );
    const check = () => {
      if (ready.test(text)) {
        clearTimeout(timer);
        resolveReady();
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm ${args.join(' ')} exited (${code}):\n${text}`));
    });
  });
  return { child, output: () => text };
}

/** Ctrl+C, as the README says: the whole group (npm, tsx, node) gets SIGINT and exits. */
async function stop(started: Started | undefined): Promise<void> {
  const child = started?.child;
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  process.kill(-child.pid, 'SIGINT');
  const timer = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** The value printed after a label (`  API              http://…`). */
function printed(output: string, label: string): string {
  const match = new RegExp(`^ +${label} +(\\S+)`, 'm').exec(output);
  assert.ok(match?.[1], `"${label}" not printed:\n${output}`);
  return match[1];
}

async function serviceEnv(dataDir: string): Promise<NodeJS.ProcessEnv> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) if (name.startsWith('FILEHOST_')) delete env[name];
  return {
    ...env,
    FILEHOST_DATA_DIR: dataDir,
    FILEHOST_API_PORT: String(await freePort()),
    FILEHOST_CDN_PORT: String(await freePort()),
  };
}

describe('README: the shell commands', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'filehost-readme-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('every command in a shell block is one this test runs or checks', () => {
    assert.ok(shellBlocks.length >= 5, `only ${shellBlocks.length} shell blocks`);
    const unknown: string[] = [];
    for (const block of shellBlocks) {
      if (block.flags === 'not-run') {
        assert.match(block.text, /^# Not run: \S.{20,}/, `README.md:${block.line}: say why`);
        continue;
      }
      for (const command of commands(block)) {
        if (!known(command, block)) unknown.push(`README.md:${block.line}: ${command}`);
      }
    }
    assert.deepEqual(unknown, []);
    assert.ok(
      shellBlocks.some((block) => commands(block).includes('npm start')),
      'the README shows npm start',
    );
  });

  it('`npm start` starts the service and the demo, prints what the README shows, and the demo page uploads', async () => {
    let started: Started | undefined;
    try {
      started = await startNpm(
        ['start'],
        await serviceEnv(await mkdtemp(join(dir, 'start-'))),
        /Press Ctrl\+C to stop/,
      );
      const output = started.output();
      // Every line of the README's sample output is printed, with a value of the same shape.
      const sample = blocks.find(
        (block) => block.language === 'text' && block.text.includes('Publishable key'),
      );
      assert.ok(sample, 'the README shows what npm start prints');
      for (const line of sample.text.split('\n').filter((l) => l.trim() !== '')) {
        const label = /^ +(\S+(?: \S+)?) {2,}/.exec(line)?.[1];
        assert.ok(label, line);
        assert.ok(printed(output, label));
      }
      assert.match(printed(output, 'Publishable key'), /^pk_live_/);
      assert.match(printed(output, 'Secret key'), /^sk_live_/);
      // The demo allows private targets, and says so (decisions.md, "Private targets are
      // opt-in"); the service alone does not.
      assert.equal(printed(output, 'Private targets'), 'allowed');
      assert.match(output, /Private targets +allowed for imports and webhooks/);

      const demo = printed(output, 'Demo');
      const page = await fetch(demo);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<file-uploader/);
      // The page's origin is allowed (any loopback port), so its uploads are taken.
      const upload = await fetch(`${printed(output, 'API')}/v1/upload`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${printed(output, 'Publishable key')}`,
          Origin: new URL(demo).origin,
          'Content-Type': 'text/plain',
          'X-Filename': 'hello.txt',
        },
        body: 'hello',
      });
      assert.equal(upload.status, 201, await upload.clone().text());
      // An allowed origin (by its loopback pattern) is not warned about as refused.
      assert.doesNotMatch(started.output(), /not among the project's allowed origins/);
    } finally {
      await stop(started);
    }
  });

  it('`npm run server` starts the service; the backend quick start runs against it as written', async () => {
    let started: Started | undefined;
    try {
      started = await startNpm(
        ['run', 'server'],
        // As the README starts it: its webhook example calls a receiver on this machine.
        {
          ...(await serviceEnv(await mkdtemp(join(dir, 'server-')))),
          FILEHOST_WEBHOOK_ALLOW_PRIVATE: 'true',
        },
        /Secret key +sk_live_\S+/,
      );
      const api = printed(started.output(), 'API');
      const secretKey = printed(started.output(), 'Secret key');

      const backend = shellBlocks.filter(
        (block) => BACKEND_SECTIONS.has(block.section) && block.flags !== 'not-run',
      );
      assert.ok(backend.length >= 3, 'the backend quick start has its commands');
      // The first block sets what `npm run server` printed; the README's placeholders are
      // the default address and the key's prefix, replaced here by what this run printed.
      const [settings, ...rest] = backend;
      assert.ok(settings, 'the backend quick start has its settings block');
      assert.ok(settings.text.includes('export FILEHOST_API_URL=http://localhost:8787'));
      assert.ok(settings.text.includes('export FILEHOST_SECRET_KEY=sk_live_…'));
      const script = [
        'set -euo pipefail',
        settings.text.replace('http://localhost:8787', api).replace('sk_live_…', secretKey),
        ...rest.map((block) => block.text),
      ].join('\n');

      const work = await mkdtemp(join(dir, 'backend-'));
      await writeFile(
        join(work, 'photo.png'),
        await sharp({
          create: { width: 600, height: 400, channels: 3, background: { r: 200, g: 80, b: 40 } },
        })
          .png()
          .toBuffer(),
      );
      const run = spawn('bash', ['-c', script], { cwd: work, stdio: 'pipe' });
      let out = '';
      run.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });
      run.stderr.on('data', (chunk: Buffer) => {
        out += chunk.toString();
      });
      const code = await new Promise<number | null>((done) => run.once('exit', done));
      assert.equal(code, 0, `the backend quick start failed:\n${out}`);

      // The variant is a 256 px WebP; the private link and the webhook's secret were answered.
      const thumb = await sharp(await readFile(join(work, 'thumb.webp'))).metadata();
      assert.equal(thumb.format, 'webp');
      assert.equal(thumb.width, 256);
      assert.match(out, /"url":"http[^"]+sig=/);
      assert.match(out, /"secret":"whsec_/);
      assert.match(out, /"token":"upt_[\w-]{32,}"/);
    } finally {
      await stop(started);
    }
  });
});
