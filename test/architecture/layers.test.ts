import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { cruise, type ICruiseOptions, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

/**
 * The import rules of `.dependency-cruiser.cjs`, run through dependency-cruiser's API: the
 * service's layers (nothing imports a layer above its own, nor a folder above it in its
 * layer) and no import circle anywhere in src, type-only and lazy `import()` edges counted.
 */

const CONFIG = './.dependency-cruiser.cjs';

/** One line per violation, naming the rule and the offending edge (or the whole circle). */
function describeViolation(violation: IViolation): string {
  const path = violation.cycle?.length
    ? [violation.from, ...violation.cycle.map(({ name }) => name)]
    : [violation.from, violation.to];
  return `${violation.rule.name}: ${path.join(' -> ')}`;
}

async function violations(
  roots: string[],
  options: ICruiseOptions,
  tsConfigFile?: string,
): Promise<string[]> {
  const transpile = tsConfigFile ? { tsConfig: extractTSConfig(tsConfigFile) } : undefined;
  const { output } = await cruise(roots, options, undefined, transpile);
  if (typeof output === 'string') throw new Error('dependency-cruiser gave text, not a result');
  return output.summary.violations.map(describeViolation).sort();
}

/** Writes `files` (path -> text) under a fresh directory; removed after the suite. */
async function tree(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'filehost-layers-'));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

const made: string[] = [];
after(async () => {
  for (const root of made) await rm(root, { recursive: true, force: true });
});

describe('the layers of the service, and import circles', () => {
  it('src holds no import running up a layer and no circle, lazy imports counted', async () => {
    const found = await violations(['src'], await extractDepcruiseOptions(CONFIG), 'tsconfig.json');
    assert.deepEqual(
      found,
      [],
      'imports breaking .dependency-cruiser.cjs (docs/development.md, "The service\'s layers")',
    );
  });

  it('names an upward import, an unplaced folder and a lazy circle, each by its edge', async () => {
    // The same rules on a small tree: the ground importing the domain, a lazy chunk that
    // imports its loader back (a circle only through its import()), a folder no layer
    // lists, and a downward import that is fine.
    const root = await tree({
      'src/server/ground/errors.ts':
        "import { remove } from '../uploads/remove';\nexport const x = remove;\n",
      'src/server/uploads/remove.ts':
        "import { y } from '../rules/auth';\nexport const remove = y;\n",
      'src/server/rules/auth.ts': "import { z } from '../somewhere/new';\nexport const y = z;\n",
      'src/server/somewhere/new.ts': 'export const z = 1;\n',
      'src/elements/loader.ts':
        "export const load = () => import('./chunk');\nexport const shared = 2;\n",
      'src/elements/chunk.ts': "import { shared } from './loader';\nexport const value = shared;\n",
    });
    made.push(root);
    const options: ICruiseOptions = {
      ...(await extractDepcruiseOptions(CONFIG)),
      baseDir: root,
      tsConfig: undefined,
    };
    assert.deepEqual(await violations(['src'], options), [
      // The browser side's own rule names the same circle (its section, client-elements-layers.test.ts).
      'client-elements-no-circle: src/elements/chunk.ts -> src/elements/loader.ts -> src/elements/chunk.ts',
      'no-circular: src/elements/chunk.ts -> src/elements/loader.ts -> src/elements/chunk.ts',
      'server-layers: a file of src/server is in no layer: src/server/rules/auth.ts -> src/server/somewhere/new.ts',
      'server-layers: ground ^src/server/ground/ imports upward: src/server/ground/errors.ts -> src/server/uploads/remove.ts',
    ]);
  });
});

/** Lines of every `.ts` file under `dir`, by the first folder (or file) below it. */
async function linesByTopFolder(dir: string): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const name of await readdir(dir, { recursive: true })) {
    if (!name.endsWith('.ts')) continue;
    const lines = (await readFile(join(dir, name), 'utf8')).split('\n').length - 1;
    const top = name.includes('/') ? `${name.split('/')[0]}/` : name;
    counts.set(top, (counts.get(top) ?? 0) + lines);
  }
  return counts;
}

describe('the rooms of the service', () => {
  it('no top-level folder of src/server holds more than a fifth of its lines', async () => {
    // Every folder as it stands: the route declarations (contract/) and their runtime
    // reader (contract-reader/) are folders of their own now.
    const counts = await linesByTopFolder('src/server');
    const total = [...counts.values()].reduce((sum, lines) => sum + lines, 0);
    const crowded = [...counts]
      .filter(([, lines]) => lines > total / 5)
      .map(([folder, lines]) => `${folder} ${((100 * lines) / total).toFixed(1)}%`);
    assert.deepEqual(crowded, []);
  });
});
