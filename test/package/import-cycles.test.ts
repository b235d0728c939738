import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';

/**
 * The static imports between our modules (`import … from`, `import type … from`, `export …
 * from`; an `import()` loads on use and is left out): a type-only import counts too, since
 * it still ties the two modules' meanings together.
 */
async function importGraph(root: string): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>();
  const files = (await readdir(root, { recursive: true }))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(root, name));
  for (const file of files) {
    const code = await readFile(file, 'utf8');
    const targets = [...code.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s*'(\.{1,2}\/[^']+)'/gm)]
      .map((match) => join(dirname(file), (match[1] as string).replace(/\.js$/, '.ts')))
      .filter((target) => files.includes(target));
    graph.set(file, targets);
  }
  return graph;
}

/**
 * Each import circle once: the modules that reach one another (a strongly connected group,
 * Tarjan's algorithm, linear in the imports), sorted. A module importing itself counts.
 */
export function importCycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file) as number);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(file, Math.min(low.get(file) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file) as number, index.get(next) as number));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || graph.get(file)?.includes(file)) cycles.push(group.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) connect(file);
  return cycles;
}

const ROUTES = 'src/server/api/routes/';
/** Where routes are registered: the one module that may import them. */
const ROUTE_TABLE = 'src/server/api/app.ts';

/** Every import of a route file by anything but the route table, as `from -> to`. */
function routeImports(graph: Map<string, string[]>): string[] {
  return [...graph]
    .filter(([file]) => file !== ROUTE_TABLE)
    .flatMap(([file, targets]) =>
      targets.filter((target) => target.startsWith(ROUTES)).map((target) => `${file} -> ${target}`),
    );
}

describe('import circles', () => {
  it('there are none among the modules in src/', async () => {
    assert.deepEqual(importCycles(await importGraph('src')), []);
  });

  it('the storage adapters depend on nothing above the storage seam', async () => {
    // The wire contract (src/api), the storage seam itself, and the few foundations every
    // layer stands on; never the HTTP layer, the routes, the CDN or the metadata stores.
    const below = ['src/api/', 'src/server/storage/', 'src/server/ground/config.ts'];
    const foundations = ['src/server/ground/secrets.ts', 'src/server/ground/network-errors.ts'];
    const graph = await importGraph('src');
    const upward = [...graph]
      .filter(([file]) => file.startsWith('src/server/storage/'))
      .flatMap(([file, targets]) =>
        targets
          .filter((target) => !below.some((path) => target.startsWith(path)))
          .filter((target) => !foundations.includes(target))
          .map((target) => `${file} -> ${target}`),
      );
    assert.deepEqual(upward, []);
  });

  it('routes are thin: none imports another route, and nothing but the app imports one', async () => {
    // Routes -> domain (src/server/uploads/) -> stores, with none back: what two routes
    // share, or the sweeper shares with a route, belongs below them.
    assert.deepEqual(routeImports(await importGraph('src')), []);
  });

  it('finds a route importing a route, and the domain importing a route', () => {
    const graph = new Map([
      [
        `${ROUTES}complete-batch.ts`,
        [`${ROUTES}complete-upload.ts`, 'src/server/uploads/complete.ts'],
      ],
      ['src/server/uploads/sweeper.ts', [`${ROUTES}upload-state.ts`]],
      ['src/server/api/app.ts', [`${ROUTES}complete-batch.ts`]],
    ]);
    assert.deepEqual(routeImports(graph), [
      `src/server/api/routes/complete-batch.ts -> src/server/api/routes/complete-upload.ts`,
      `src/server/uploads/sweeper.ts -> src/server/api/routes/upload-state.ts`,
    ]);
  });

  it('finds a circle where there is one', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    assert.deepEqual(importCycles(graph), [['a.ts', 'b.ts', 'c.ts']]);
    assert.deepEqual(importCycles(new Map([['a.ts', ['a.ts']]])), [['a.ts']]);
    assert.deepEqual(importCycles(new Map([['a.ts', ['b.ts']]])), []);
  });
});
