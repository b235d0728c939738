import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import {
  cruise,
  type ICruiseOptions,
  type ICruiseResult,
  type IForbiddenRuleType,
} from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';

/**
 * The rules of `.dependency-cruiser.cjs`'s section for src/client and src/elements (names
 * starting `client-elements-`), run by dependency-cruiser itself over the sources: no import
 * circle (type-only and lazy `import()` edges included) and no import running back up the
 * layers docs/development.md draws (entries -> elements -> upload engine -> shared ->
 * client -> api).
 */
const SECTION = 'client-elements-';
/** Where the rules look: the browser side, the contract below it and the entries above it. */
const SOURCES = [
  'src/client',
  'src/elements',
  'src/api',
  'src/index.ts',
  'src/elements.ts',
  'src/script-tag.ts',
  'src/script-tag-one-file.ts',
  'src/every-language.ts',
  'src/react.ts',
  'src/vue.ts',
];

async function sectionOptions(): Promise<ICruiseOptions> {
  const options = await extractDepcruiseOptions('./.dependency-cruiser.cjs');
  const forbidden = (options.ruleSet?.forbidden ?? []).filter((rule: IForbiddenRuleType) =>
    rule.name?.startsWith(SECTION),
  );
  return { ...options, validate: true, ruleSet: { forbidden } };
}

async function cruiseWith(
  sources: string[],
  options: ICruiseOptions,
  tsConfigFile: string,
): Promise<ICruiseResult> {
  const tsConfig = extractTSConfig(tsConfigFile);
  const { output } = await cruise(sources, options, undefined, { tsConfig });
  assert.equal(typeof output, 'object');
  return output as ICruiseResult;
}

function violationsOf(result: ICruiseResult): string[] {
  return result.summary.violations.map(
    (violation) =>
      `${violation.rule.name}: ${violation.from} -> ${violation.to}${
        violation.cycle ? ` (${violation.cycle.map((step) => step.name).join(' -> ')})` : ''
      }`,
  );
}

describe('src/client and src/elements: layers and circles (dependency-cruiser)', () => {
  const scratch: string[] = [];
  after(async () => {
    for (const dir of scratch) await rm(dir, { recursive: true, force: true });
  });

  it('has no import circle and no import running back up', async () => {
    const options = await sectionOptions();
    assert.ok((options.ruleSet?.forbidden ?? []).length >= 6, 'the section has its rules');
    const result = await cruiseWith(SOURCES, options, 'tsconfig.json');
    assert.deepEqual(violationsOf(result), []);
    // The graph the rules ran over holds the lazy edges: the English words of the
    // service's answers are a chunk `failure-text.ts` loads by `import()`, seen as such.
    const loader = result.modules.find(
      (module) => module.source === 'src/elements/shared/failure-text.ts',
    );
    const lazy = loader?.dependencies.find(
      (dependency) => dependency.resolved === 'src/elements/shared/en-service.ts',
    );
    assert.equal(lazy?.dynamic, true);
    assert.ok(lazy?.dependencyTypes.includes('dynamic-import'));
  });

  it('finds a lazy circle, an upward import and two elements importing each other', async () => {
    const root = await mkdtemp(join(tmpdir(), 'filehost-layers-'));
    scratch.push(root);
    const files: Record<string, string> = {
      'tsconfig.json': JSON.stringify({
        compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true },
        include: ['src'],
      }),
      // A chunk that imports back from the module that loads it.
      'src/client/loader.ts':
        "export const load = () => import('./chunk.js');\nexport const N = 1;\n",
      'src/client/chunk.ts': "import { N } from './loader.js';\nexport const twice = N * 2;\n",
      // The engine reaching up into the element that holds it (a type is enough).
      'src/elements/upload-engine/engine.ts':
        "import type { View } from '../file-uploader/view.js';\nexport const views: View[] = [];\n",
      'src/elements/file-uploader/view.ts': 'export interface View { id: string }\n',
      'src/elements/file-list/list.ts':
        "import type { View } from '../file-uploader/view.js';\nexport const rows: View[] = [];\n",
    };
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), text);
    }
    const options = { ...(await sectionOptions()), baseDir: root };
    const result = await cruiseWith(['src'], options, join(root, 'tsconfig.json'));
    assert.deepEqual(violationsOf(result).sort(), [
      'client-elements-apart: src/elements/file-list/list.ts -> src/elements/file-uploader/view.ts',
      'client-elements-engine-below: src/elements/upload-engine/engine.ts -> src/elements/file-uploader/view.ts',
      'client-elements-no-circle: src/client/chunk.ts -> src/client/loader.ts (src/client/loader.ts -> src/client/chunk.ts)',
    ]);
  });
});
