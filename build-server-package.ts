/**
 * `npm run build`'s last step: the service as a package of its own, `@filehost/server`, in
 * `dist/server/` (`npm run pack` packs it beside the widget's `filehost`).
 *
 * Why a build step and not npm workspaces (a manifest at `src/server/package.json`): the
 * service's sources import the contract by relative paths (`../../api/types.js`), which is
 * what the type check, tsx and every test run on, and many hands edit them; a workspace
 * would still need its compiled code to import the contract from `filehost` rather than
 * carry a copy, so a build step was needed either way. A workspace would also make the
 * root install link a second package (its dependency on `filehost` resolved against the
 * registry, since the root is no workspace of its own), and the lock file change shape.
 * Here the sources stay as they are: `tsc -p tsconfig.server.json` compiles `src/server`
 * (and the contract files it reaches) to `dist/server/lib/`, and this script
 *
 * - points every import of the contract (`src/api/*`) at the widget package: `filehost/api`
 *   (and `filehost/openapi.json`), then drops the compiled copy of the contract, and fails on
 *   an import of anything else outside `src/server` (the service owns no browser code);
 * - writes the manifest: the same version, a `bin` (`filehost-server` starts the embedded
 *   service, `filehost-server admin …` manages projects and keys), and as dependencies
 *   exactly the packages the compiled code imports (with the `@types` its declarations
 *   need), at the versions the root manifest pins for the repo's own development, plus
 *   `filehost` itself at this version. Nothing is listed by hand, so nothing drifts.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';

const OUT = 'dist/server';
const LIB = join(OUT, 'lib');
/** Where tsc put the service (`src/server`) and the contract (`src/api`) it compiled. */
const COMPILED_SERVER = join(LIB, 'server');
const COMPILED_API = join(LIB, 'api');
const SERVER_PACKAGE = '@filehost/server';
const SERVER_BIN = 'filehost-server';
/**
 * The Node versions the service is tested on (decisions.md, "Runtimes"): 20 only. Its SQLite
 * driver is native and is not built for Node 24 on the test machines, so the service is said
 * to work there only once it has run there; the widget package (no native code) says
 * `>=20.19`, tested on Node 20 and 24.
 */
const SERVER_ENGINES = { node: '^20.19.0' };

interface Manifest {
  name: string;
  version: string;
  license: string;
  engines: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** Every import specifier of a compiled module: static, dynamic, `export … from`, `require(…)`. */
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)(['"])([^'"]+)\2/g;

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The package a bare specifier names (`@aws-sdk/client-s3/x` → `@aws-sdk/client-s3`). */
function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

/**
 * Rewrites one compiled file's imports of the contract; answers the packages it imports
 * (bare specifiers, Node's own left out).
 */
async function relink(file: string): Promise<Set<string>> {
  const packages = new Set<string>();
  const code = await readFile(file, 'utf8');
  const relinked = code.replace(SPECIFIER, (whole, lead: string, quote: string, spec: string) => {
    if (!spec.startsWith('.')) {
      const name = packageOf(spec);
      if (!spec.startsWith('node:') && !builtinModules.includes(name)) packages.add(name);
      return whole;
    }
    const target = resolve(dirname(file), spec);
    if (target.startsWith(`${resolve(COMPILED_SERVER)}/`)) return whole;
    if (target.startsWith(`${resolve(COMPILED_API)}/`)) {
      const contract = target.endsWith('/openapi.json') ? 'filehost/openapi.json' : 'filehost/api';
      return `${lead}${quote}${contract}${quote}`;
    }
    throw new Error(`${file} imports ${spec}, outside src/server and src/api`);
  });
  if (relinked !== code) await writeFile(file, relinked);
  return packages;
}

/** The `@types` package a package's types come from, when it ships none of its own. */
async function typesPackageOf(
  name: string,
  pinned: Record<string, string>,
): Promise<string | null> {
  const manifest = JSON.parse(
    await readFile(join('node_modules', name, 'package.json'), 'utf8'),
  ) as { types?: string; typings?: string; exports?: unknown };
  const ownTypes =
    manifest.types ?? manifest.typings ?? JSON.stringify(manifest.exports ?? '').includes('types');
  if (ownTypes) return null;
  const typesName = `@types/${name.replace(/^@/, '').replace('/', '__')}`;
  return typesName in pinned ? typesName : null;
}

/** Whether the installed package `name` names the systems it is for (`os` in its manifest). */
async function forSomeSystems(name: string): Promise<boolean> {
  const manifest = JSON.parse(
    await readFile(join('node_modules', name, 'package.json'), 'utf8'),
  ) as { os?: unknown };
  return Array.isArray(manifest.os);
}

async function main(): Promise<void> {
  if (!existsSync(COMPILED_SERVER))
    throw new Error(`No ${COMPILED_SERVER}: run \`tsc -p tsconfig.server.json\` first.`);
  const root = JSON.parse(await readFile('package.json', 'utf8')) as Manifest;
  const pinned = { ...root.devDependencies, ...root.dependencies };

  const runtime = new Set<string>();
  const declared = new Set<string>();
  for (const file of await filesUnder(COMPILED_SERVER)) {
    if (file.endsWith('.d.ts')) for (const name of await relink(file)) declared.add(name);
    else if (file.endsWith('.js')) for (const name of await relink(file)) runtime.add(name);
  }
  // The service, and nothing of the contract: that comes from `filehost`.
  await rm(COMPILED_API, { recursive: true, force: true });
  const staging = `${LIB}.staging`;
  await rename(COMPILED_SERVER, staging);
  await rm(LIB, { recursive: true, force: true });
  await rename(staging, LIB);

  const dependencies: Record<string, string> = { filehost: root.version };
  const needed = [...runtime];
  for (const name of declared) {
    const types = await typesPackageOf(name, pinned);
    if (types) needed.push(types);
  }
  // A package made for some systems only (an `os` list, as exiftool-vendored.pl's `!win32`)
  // is optional, as exiftool-vendored itself lists it: required, it would fail the install
  // elsewhere, where the service does not load it.
  const optionalDependencies: Record<string, string> = {};
  for (const name of needed.sort()) {
    const version = pinned[name];
    if (!version) throw new Error(`src/server imports ${name}, which package.json does not pin`);
    if (await forSomeSystems(name)) optionalDependencies[name] = version;
    else dependencies[name] = version;
  }

  const manifest = {
    name: SERVER_PACKAGE,
    version: root.version,
    description:
      'The reference filehost service (embedded: SQLite and local disk; at scale: PostgreSQL and S3), as one command: npx @filehost/server',
    type: 'module',
    license: root.license,
    engines: SERVER_ENGINES,
    bin: { [SERVER_BIN]: 'bin.js' },
    main: './lib/index.js',
    types: './lib/index.d.ts',
    exports: {
      '.': { types: './lib/index.d.ts', default: './lib/index.js' },
      './package.json': './package.json',
    },
    files: ['bin.js', 'lib', 'README.md'],
    dependencies,
    ...(Object.keys(optionalDependencies).length > 0 ? { optionalDependencies } : {}),
  };
  await writeFile(join(OUT, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await writeFile(
    join(OUT, 'bin.js'),
    `#!/usr/bin/env node
// \`${SERVER_BIN}\`: starts the embedded service (configured by FILEHOST_* variables and a
// .env file in the working directory); \`${SERVER_BIN} admin …\` manages projects and keys.
if (process.argv[2] === 'admin') {
  process.argv.splice(2, 1);
  await import('./lib/cli.js');
} else {
  await import('./lib/start/main.js');
}
`,
    { mode: 0o755 },
  );
  await writeFile(
    join(OUT, 'README.md'),
    `# ${SERVER_PACKAGE}

The reference service of [filehost](https://www.npmjs.com/package/filehost): the API and the
CDN for \`<file-uploader>\` and \`<file-list>\`. Embedded (SQLite and the local disk) by
default; PostgreSQL and S3 when \`FILEHOST_DATABASE_URL\` and \`FILEHOST_S3_*\` are set.

    npx ${SERVER_PACKAGE}                      # starts it, prints its URLs and keys
    npx ${SERVER_PACKAGE} admin keys generate  # projects, keys, webhooks: admin --help

In Node: \`import { startService, configFromEnv } from '${SERVER_PACKAGE}';\`. It compiles
the SQLite driver (\`better-sqlite3\`) on install where no prebuilt binary is reachable.
The API's types and OpenAPI document are the widget package's: \`filehost/api\`,
\`filehost/openapi.json\`.
`,
  );
  console.log(
    `${relative('.', OUT)}: ${SERVER_PACKAGE}@${root.version}, ${Object.keys(dependencies).length} dependencies, ${Object.keys(optionalDependencies).length} optional`,
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
