import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { codeBlocks } from '../helpers/markdown.js';
import { node24 } from '../helpers/node24.js';
import { npm, packBoth } from '../helpers/packs.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * `filehost/client/node` as a backend developer meets it (#53 point 2): the widget's tarball
 * installed alone in an empty Node project, without the optional peer `standardwebhooks`;
 * docs/client.md's Node examples (`fileSource`, `uploadPath`) compiled there by `tsc` under
 * `strict` with the package's types checked too (no `skipLibCheck`), then run against a real
 * service, on this Node (20) and on Node 24; and `verifyWebhook` without its peer throws an
 * error that says to install it.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);
/** The examples' sections in docs/client.md: every `ts` block that imports the Node entry. */
const NODE_IMPORT = "from 'filehost/client/node'";
/** The Node types this repository develops against, for the project's own `tsc`. */
const TYPES_NODE = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  }
).devDependencies['@types/node'] as string;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noUncheckedIndexedAccess: true,
    outDir: 'out',
    types: ['node'],
  },
  include: ['src'],
};

/** Run without the peer: the error a user meets, printed for the test to read. */
const VERIFY_WITHOUT_PEER = `import { verifyWebhook } from 'filehost/client/node';

try {
  verifyWebhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', { 'webhook-id': 'msg_1', 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' }, '{}');
  console.log('verified without standardwebhooks');
} catch (error) {
  console.log(error instanceof Error ? error.message : String(error));
}
`;

/** A few MiB that file-type takes for an MP4 (an `ftyp` box, brand mp42), sent in parts. */
function mp4Bytes(size: number): Buffer {
  const bytes = Buffer.alloc(size, 7);
  Buffer.from('00000018667479706d7034320000000069736f6d6d703432', 'hex').copy(bytes);
  return bytes;
}

describe('filehost/client/node from the tarball alone, without standardwebhooks', () => {
  let t: TestService;
  let project: string;
  let packs: string;
  let examples: string[];
  const runtimes: { name: string; node: string }[] = [];

  before(async () => {
    t = await startTestService();
    const { widget, dir } = await packBoth();
    packs = dir;
    project = await mkdtemp(join(tmpdir(), 'filehost-node-client-'));
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({ name: 'backend', private: true, type: 'module' }, null, 2),
    );
    await writeFile(join(project, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
    await npm(project, ['install', '--no-audit', '--no-fund', widget, `@types/node@${TYPES_NODE}`]);

    const blocks = codeBlocks(ROOT, 'docs/client.md').filter(
      (block) => block.language === 'ts' && block.text.includes(NODE_IMPORT),
    );
    await mkdir(join(project, 'src'));
    examples = [];
    for (const [index, block] of blocks.entries()) {
      const name = `example-${index + 1}`;
      // The default address in the docs is this service's.
      await writeFile(
        join(project, 'src', `${name}.ts`),
        block.text.replaceAll('http://localhost:8787', t.apiUrl),
      );
      examples.push(name);
    }
    await writeFile(join(project, 'src/verify-without-peer.ts'), VERIFY_WITHOUT_PEER);
    await writeFile(join(project, 'video.mp4'), mp4Bytes(6 * 1024 * 1024 + 123));
    runtimes.push({ name: `Node ${process.versions.node}`, node: process.execPath });
    runtimes.push({ name: 'Node 24', node: await node24() });
  });
  after(async () => {
    await t?.close();
    if (project) await rm(project, { recursive: true, force: true });
    if (packs) await rm(packs, { recursive: true, force: true });
  });

  it('installs without the optional peer', () => {
    assert.ok(existsSync(join(project, 'node_modules/filehost/dist/lib/client/node.js')));
    assert.ok(!existsSync(join(project, 'node_modules/standardwebhooks')), 'the peer came too');
  });

  it("docs/client.md's Node examples (fileSource, uploadPath) type-check under strict, the package's types too", async () => {
    assert.ok(examples.length >= 2, `only ${examples.length} Node examples in docs/client.md`);
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    await run(process.execPath, [tsc, '-p', '.'], { cwd: project }).catch(
      (error: { stdout?: string }) => assert.fail(`tsc failed:\n${error.stdout}`),
    );
  });

  it('the examples upload video.mp4 to the service, on Node 20 and on Node 24', async () => {
    let uploads = 0;
    for (const { name, node } of runtimes) {
      for (const example of examples) {
        const { stdout } = await run(node, [join('out', `${example}.js`)], {
          cwd: project,
          env: {
            PATH: process.env.PATH,
            FILEHOST_API_URL: t.apiUrl,
            FILEHOST_SECRET_KEY: t.secretKey,
            XDG_CACHE_HOME: join(project, '.cache'),
          },
          timeout: 120_000,
        }).catch((error: { stdout?: string; stderr?: string }) =>
          assert.fail(`${example} on ${name} failed:\n${error.stdout}\n${error.stderr}`),
        );
        assert.match(stdout, /100%|6291579 \/ 6291579/, `${example} on ${name}: ${stdout}`);
        uploads++;
      }
    }
    const { files } = (await (await t.api('/v1/files')).json()) as {
      files: { name: string; size: number; status: string }[];
    };
    assert.equal(files.length, uploads);
    for (const file of files) {
      assert.equal(file.name, 'video.mp4');
      assert.equal(file.size, 6 * 1024 * 1024 + 123);
    }
  });

  it('verifyWebhook without standardwebhooks says to install it, on Node 20 and on Node 24', async () => {
    for (const { name, node } of runtimes) {
      const { stdout } = await run(node, ['out/verify-without-peer.js'], { cwd: project });
      assert.match(stdout, /npm install standardwebhooks/, `${name}: ${stdout}`);
    }
    assert.ok((await readdir(join(project, 'out'))).includes('verify-without-peer.js'));
  });
});
