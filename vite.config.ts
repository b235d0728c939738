import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import MagicString from 'magic-string';
import { minifyHTMLLiterals } from 'minify-literals';
import { defineConfig, type Plugin, parseAst } from 'vite';

/**
 * Uppy's packages import their whole package.json only to read `version`; in the bundle
 * that is kilobytes of descriptions and export maps. Keep just the version.
 */
function uppyVersionOnly(): Plugin {
  return {
    name: 'filehost-uppy-version-only',
    enforce: 'pre',
    load(id) {
      if (!/[\\/]@uppy[\\/][^\\/]+[\\/]package\.json$/.test(id)) return null;
      const { version } = JSON.parse(readFileSync(id, 'utf8')) as { version: string };
      // Still JSON: Vite's JSON plugin turns it into the module.
      return JSON.stringify({ version });
    },
  };
}

/**
 * Uppy's default English locale carries the strings of its whole UI (Dashboard, provider
 * views, Google Picker, S3 browsing): 3.6 KiB minified. The elements show none of them: they
 * word every state and refusal themselves, and tell Uppy's refusals apart by Uppy's state,
 * not by its words. So none is kept; asked for one, Uppy's translator gives back its key
 * (and tells the element's logger, which discards it) rather than throwing.
 */
function uppyLocaleWithoutStrings(): Plugin {
  return {
    name: 'filehost-uppy-locale-without-strings',
    enforce: 'pre',
    load(id) {
      return /[\\/]@uppy[\\/]core[\\/]lib[\\/]locale\.js$/.test(id)
        ? 'export default { strings: {} };'
        : null;
    },
  };
}

/**
 * Uppy guesses a type from the extension when the browser gives none, from a table most of
 * which is Office and archive formats (for its Dashboard's previews). Keep the media and text
 * entries, which `accept="image/*"`-style checks depend on; a document the browser cannot
 * type is uploaded as `application/octet-stream`, the service's default, as without Uppy.
 */
function uppyMimeTypesForMedia(): Plugin {
  return {
    name: 'filehost-uppy-mime-types-for-media',
    enforce: 'pre',
    apply: 'build',
    async load(id) {
      if (!/[\\/]@uppy[\\/]core[\\/]lib[\\/]utils[\\/]mimeTypes\.js$/.test(id)) return null;
      const table = (await import(pathToFileURL(id).href)) as { default: Record<string, string> };
      const kept = Object.entries(table.default).filter(([, type]) =>
        /^(image|video|audio|text)\//.test(type),
      );
      // No prototype, as in Uppy's table: a file named `x.constructor` must find nothing.
      return `export default { __proto__: null, ...${JSON.stringify(Object.fromEntries(kept))} };`;
    },
  };
}

/**
 * In the script-tag bundle only, three of Uppy's small modules are replaced by what the
 * bundle already has or needs less of (each shim says why): together 1.3 KiB gzipped
 * of a 32 KiB budget. Bundler users of the npm package get the real ones.
 */
export const bundleShims: Record<string, string> = {
  'lodash/throttle.js': 'src/bundle-shims/throttle.ts',
  '@transloadit/prettier-bytes': 'src/bundle-shims/prettier-bytes.ts',
  './supportsUploadProgress.js': 'src/bundle-shims/supports-upload-progress.ts',
};

function scriptTagShims(): Plugin {
  return {
    name: 'filehost-script-tag-shims',
    enforce: 'pre',
    apply: 'build',
    resolveId(id, importer) {
      const shim = bundleShims[id];
      if (!shim || !importer || !/[\\/]node_modules[\\/]@uppy[\\/]/.test(importer)) return null;
      return fileURLToPath(new URL(`./${shim}`, import.meta.url));
    },
  };
}

/**
 * Three of Uppy's dependencies are tiny CommonJS modules (an event emitter and the MIME-type
 * matcher its restrictions use, with the wildcard matcher under it). Bundled as they are,
 * they bring the bundler's CommonJS interop runtime along (0.3 KiB gzipped). Each is one
 * `module.exports = function` and at most one `require`, and strict-mode safe, so in the
 * script-tag bundle they are read as the ES modules they are equivalent to.
 */
export const commonJsAsEsm = ['namespace-emitter', 'wildcard', 'mime-match'];

export function esmFromCommonJs(source: string, id: string): string {
  const esm = source
    .replace(/^var (\w+) = require\('([\w-]+)'\);$/m, "import $1 from '$2';")
    .replace(/^module\.exports = /m, 'export default ');
  // Code shaped otherwise (a new version of one of them) must not slip through half-converted.
  if (
    !esm.includes('export default ') ||
    /\brequire\(|\bmodule\.|\bexports\./.test(esm.replace(/\/\*[\s\S]*?\*\//g, ''))
  )
    throw new Error(
      `${id}: not the CommonJS shape esmFromCommonJs converts; update vite.config.ts`,
    );
  return esm;
}

function commonJsDependenciesAsEsm(): Plugin {
  const modules = new RegExp(
    `[\\\\/]node_modules[\\\\/](${commonJsAsEsm.join('|')})[\\\\/]index\\.js$`,
  );
  return {
    name: 'filehost-commonjs-dependencies-as-esm',
    enforce: 'pre',
    apply: 'build',
    load(id) {
      return modules.test(id) ? esmFromCommonJs(readFileSync(id, 'utf8'), id) : null;
    },
  };
}

/**
 * Members of Uppy's classes that nothing in the script-tag bundle calls: Dashboard's helpers
 * (pause and resume, retry all, the files grouped by state), Companion's request clients,
 * Uppy's test hooks. A class's methods cannot be tree-shaken, so without this the bundle
 * carries them all. Keys are module paths under `@uppy/`.
 */
export const uppyUnusedMembers: Record<string, readonly string[]> = {
  'core/lib/Uppy.js': [
    'resetProgress',
    'removePreProcessor',
    'removePostProcessor',
    'setFileMeta',
    'getObjectOfFilesPerState',
    'validateRestrictions',
    'pauseResume',
    'pauseAll',
    'resumeAll',
    'retryAll',
    'logout',
    'registerRequestClient',
    'getRequestClientForFile',
    '#requestClientById',
    'restore',
    "Symbol.for('uppy test: updateTotalProgress')",
    "Symbol.for('uppy test: getPlugins')",
    "Symbol.for('uppy test: createUpload')",
  ],
  'core/lib/EventManager.js': [
    'onFilePause',
    'onPause',
    'onRetry',
    'onRetryAll',
    'onPauseAll',
    'onResumeAll',
  ],
  'core/lib/utils/TaskQueue.js': ['pause', 'resume', 'running', 'isPaused', 'wrapPromiseFunction'],
  'core/lib/BasePlugin.js': ['getPluginState', 'addTarget'],
  'core/lib/Restricter.js': ['validate'],
  'xhr-upload/lib/index.js': ['createBundledUpload'],
};

/**
 * Expressions in Uppy's code whose value is fixed by how the element uses Uppy, with how
 * often each occurs: XHRUpload's `bundle` mode (all files in one request) is never set (the
 * element uploads each file on its own), and no file is remote (Companion's: the element adds
 * only files from the page). Read as `false`, the code behind them goes in minifying.
 */
export const uppyFoldedExpressions: Record<
  string,
  readonly { expression: string; value: string; count: number }[]
> = {
  'xhr-upload/lib/index.js': [
    { expression: 'this.opts.bundle', value: 'false', count: 5 },
    { expression: 'file.isRemote', value: 'false', count: 2 },
  ],
};

interface AstNode {
  type: string;
  start: number;
  end: number;
}

function isAstNode(value: unknown): value is AstNode {
  return typeof value === 'object' && value !== null && typeof (value as AstNode).type === 'string';
}

/** Calls `visit` on every node below `node`; a node for which it returns false is not entered. */
function walk(node: AstNode, visit: (node: AstNode) => boolean | undefined): void {
  if (visit(node) === false) return;
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) for (const item of value) isAstNode(item) && walk(item, visit);
    else if (isAstNode(value)) walk(value, visit);
  }
}

/** A class member's name as listed in `uppyUnusedMembers`: `name`, `#name` or `[computed]`. */
function memberName(code: string, member: AstNode): string | undefined {
  const { key, computed } = member as AstNode & {
    key?: AstNode & { name?: string };
    computed?: boolean;
  };
  if (!key) return undefined;
  if (computed) return code.slice(key.start, key.end);
  return key.type === 'PrivateIdentifier' ? `#${key.name}` : key.name;
}

/** Whether evaluating this node can change anything (a call, an assignment, …). */
function hasEffects(node: AstNode): boolean {
  let effects = false;
  walk(node, (inner) => {
    if (/^(Call|New|Assignment|Update|Await|Yield|Import)Expression$/.test(inner.type))
      effects = true;
    return !effects;
  });
  return effects;
}

/**
 * Trims one of Uppy's modules for the script-tag bundle (see `uppyTrimmedForScriptTag`).
 * `path` is the module's path under `@uppy/`.
 */
export function trimUppyModule(code: string, path: string): MagicString {
  const out = new MagicString(code);
  const unused = new Set(uppyUnusedMembers[path]);
  const folds = uppyFoldedExpressions[path] ?? [];
  const removed = new Set<string>();
  const folded = new Map<string, number>();
  walk(parseAst(code) as unknown as AstNode, (node) => {
    if (node.type === 'ClassBody') {
      for (const member of (node as AstNode & { body: AstNode[] }).body) {
        const name = memberName(code, member);
        if (name && unused.has(name)) {
          out.remove(member.start, member.end);
          removed.add(name);
        }
      }
    }
    const source = () => code.slice(node.start, node.end);
    if (node.type === 'MemberExpression') {
      const fold = folds.find((f) => f.expression === source());
      if (fold) {
        out.overwrite(node.start, node.end, fold.value);
        folded.set(fold.expression, (folded.get(fold.expression) ?? 0) + 1);
        return false;
      }
    }
    if (node.type === 'ExpressionStatement') {
      const call = (node as AstNode & { expression: AstNode }).expression as AstNode & {
        callee?: AstNode;
        arguments?: AstNode[];
      };
      const callee = call.callee ? code.slice(call.callee.start, call.callee.end) : '';
      if (
        call.type === 'CallExpression' &&
        (callee === 'this.log' || callee === 'this.uppy.log') &&
        !call.arguments?.some(hasEffects)
      ) {
        // An empty statement, not nothing: the call may be the whole body of a brace-less
        // `if`, whose body would otherwise become the statement after it (Uppy's
        // `if (!exists) this.log(…); return exists;` turned into `if (!exists) return exists`,
        // and every file lost its progress in the script-tag bundle).
        out.overwrite(node.start, node.end, ';');
        return false;
      }
    }
    return undefined;
  });
  // An Uppy update that renames or rewrites any of these must not pass unnoticed.
  const missing = [...unused].filter((name) => !removed.has(name));
  const miscounted = folds.filter((f) => (folded.get(f.expression) ?? 0) !== f.count);
  if (missing.length > 0 || miscounted.length > 0)
    throw new Error(
      `@uppy/${path}: ${[...missing, ...miscounted.map((f) => `${f.expression} x${f.count}`)].join(', ')} not as expected; update vite.config.ts`,
    );
  return out;
}

/**
 * The names a bundle reads or calls as properties (`a.name`, `a['name']`), and the literal
 * strings in it: a member removed from Uppy must be in neither.
 */
export function namesReadIn(code: string): { properties: Set<string>; strings: Set<string> } {
  const properties = new Set<string>();
  const strings = new Set<string>();
  walk(parseAst(code) as unknown as AstNode, (node) => {
    const { computed, property, value } = node as AstNode & {
      computed?: boolean;
      property?: AstNode & { name?: string; value?: unknown };
      value?: unknown;
    };
    if (node.type === 'MemberExpression' && property) {
      if (!computed && property.name) properties.add(property.name);
      if (computed && typeof property.value === 'string') properties.add(property.value);
    }
    if (node.type === 'Literal' && typeof value === 'string') strings.add(value);
    if (node.type === 'TemplateElement') {
      const cooked = (node as AstNode & { value: { cooked?: string } }).value.cooked;
      if (cooked) strings.add(cooked);
    }
    return undefined;
  });
  return { properties, strings };
}

/** The members in `uppyUnusedMembers` that a bundle still reads (a `Symbol.for` key: names). */
export function uppyMembersStillReadIn(code: string): string[] {
  const { properties, strings } = namesReadIn(code);
  return Object.values(uppyUnusedMembers)
    .flat()
    .filter((name) => {
      const symbol = /^Symbol\.for\('(.+)'\)$/.exec(name)?.[1];
      return symbol ? strings.has(symbol) : properties.has(name);
    });
}

/**
 * Uppy is written for all of Uppy's products, and much of it serves ones the elements are
 * not: in the script-tag build only (npm users get Uppy whole), Uppy's modules lose the class
 * members in `uppyUnusedMembers`, read the expressions in `uppyFoldedExpressions` as their one
 * value, and drop their `log` statements, since the element gives Uppy a logger that discards
 * every message (upload-controller.ts). Once the bundle is minified, it is searched for every
 * removed name: if anything still reads one, the build fails.
 */
function uppyTrimmedForScriptTag(): Plugin {
  const uppyModule = /[\\/]node_modules[\\/]@uppy[\\/]((?:core|xhr-upload)[\\/]lib[\\/].+\.js)$/;
  return {
    name: 'filehost-uppy-trimmed-for-script-tag',
    apply: 'build',
    transform(code, id) {
      const path = uppyModule.exec(id)?.[1]?.replaceAll('\\', '/');
      if (!path) return null;
      const out = trimUppyModule(code, path);
      return { code: out.toString(), map: out.generateMap({ hires: true, source: id }) };
    },
    generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk') continue;
        const stillRead = uppyMembersStillReadIn(chunk.code);
        if (stillRead.length > 0)
          this.error(
            `${chunk.fileName} still uses Uppy members removed from it: ${stillRead.join(', ')}`,
          );
      }
    },
  };
}

/**
 * The elements' html`` and css`` templates are written to read well in the source; in the
 * bundle their indentation, comments and optional whitespace are bytes sent for nothing.
 * minify-literals (html-minifier-terser and clean-css, made for Lit's templates) minifies
 * them in the element modules, keeping every `${}` binding and the source map.
 */
function minifyTemplates(): Plugin {
  return {
    name: 'filehost-minify-templates',
    apply: 'build',
    async transform(code, id) {
      if (!/[\\/]src[\\/]elements[\\/].*\.ts$/.test(id)) return null;
      const result = await minifyHTMLLiterals(code, { fileName: id });
      return result ? { code: result.code, map: result.map?.toString() } : null;
    },
  };
}

/**
 * `npm start` serves the demo (`index.html`, `demo/`) with Vite on port 5173 (fixed: the
 * service's default project allows exactly that origin). `npm run build` builds the
 * script-tag bundle `dist/filehost.js`: one ES module with Lit, Uppy and both elements.
 */
/**
 * The demo page loads the product the way a page author does, with one script tag for
 * `/filehost.js`; under `npm start` that is the sources, so edits show at once.
 */
function scriptTagFromSources(): Plugin {
  return {
    name: 'filehost-script-tag-from-sources',
    apply: 'serve',
    resolveId(id) {
      return id === '/filehost.js'
        ? fileURLToPath(new URL('./src/script-tag.ts', import.meta.url))
        : null;
    },
  };
}

export default defineConfig({
  server: {
    host: 'localhost',
    port: 5173,
    strictPort: true,
  },
  preview: {
    port: 5173,
    strictPort: true,
  },
  clearScreen: false,
  plugins: [
    uppyVersionOnly(),
    uppyLocaleWithoutStrings(),
    uppyMimeTypesForMedia(),
    scriptTagShims(),
    commonJsDependenciesAsEsm(),
    uppyTrimmedForScriptTag(),
    minifyTemplates(),
    scriptTagFromSources(),
  ],
  // The Vue demo compiles its template in the browser, so it needs Vue's full build.
  resolve: { alias: { vue: 'vue/dist/vue.esm-bundler.js' } },
  define: {
    __VUE_OPTIONS_API__: 'true',
    __VUE_PROD_DEVTOOLS__: 'false',
    __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false',
  },
  build: {
    target: 'es2022',
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    // Library builds keep whitespace by default (for further bundling); the script-tag
    // bundle is the end product, so it is minified fully.
    minify: true,
    rolldownOptions: {
      // What both filehost.js and the engine use stays in filehost.js (the engine imports it
      // from there) instead of becoming a third file that the first load must also fetch.
      preserveEntrySignatures: 'allow-extension',
      output: {
        minify: true,
        comments: false,
        // The upload engine, imported by filehost.js on first use or when the page is idle,
        // by a path relative to itself: the pair works from any folder of any CDN.
        chunkFileNames: 'filehost-[name]-[hash].js',
      },
    },
    lib: {
      entry: 'src/script-tag.ts',
      formats: ['es'],
      fileName: () => 'filehost.js',
    },
  },
});
