/**
 * The import rules of the repository, checked by dependency-cruiser (`npx depcruise`) and by
 * the tests in `test/architecture/`, which run them over the sources. Every kind of import
 * counts: a type-only import ties two modules' meanings together, and a lazy `import()`
 * (dependency type `dynamic`) is an edge of the graph all the same (a chunk that imports
 * back from the module that loads it is a circle). docs/development.md draws the layers.
 */

/**
 * ==== src/client and src/elements (the browser side) ====
 *
 * Top to bottom (a folder may import only those below it):
 * the entries (`src/index.ts`, `src/elements.ts`, `src/script-tag*.ts`, `src/react.ts`,
 * `src/vue.ts`) -> the elements (`elements/file-uploader`, `elements/file-list`, apart from
 * each other) -> the upload engine (`elements/upload-engine`) -> what both elements share
 * (`elements/shared`) -> the typed client (`client`) -> the contract (`api`).
 */
const CLIENT_AND_ELEMENTS = '^src/(client|elements)/';
const ENTRIES = '^src/[^/]+[.]ts$';
const ELEMENTS = '^src/elements/(file-uploader|file-list)/';

/** This section's rules: each name starts with `client-elements-`. */
const clientAndElementsRules = [
  {
    name: 'client-elements-no-circle',
    comment:
      'No import circle in src/client and src/elements, lazy ones included: what a chunk and its loader share lives in a third module.',
    severity: 'error',
    from: { path: CLIENT_AND_ELEMENTS },
    to: { path: CLIENT_AND_ELEMENTS, circular: true },
  },
  {
    name: 'client-elements-api-below',
    comment:
      'The contract (src/api) is the ground of the client and the elements: it imports neither.',
    severity: 'error',
    from: { path: '^src/api/' },
    to: { path: ['^src/(client|elements)/', ENTRIES] },
  },
  {
    name: 'client-elements-client-below',
    comment: 'The typed client stands below the elements: it imports none of them, nor an entry.',
    severity: 'error',
    from: { path: '^src/client/' },
    to: { path: ['^src/elements/', ENTRIES] },
  },
  {
    name: 'client-elements-shared-below',
    comment:
      'What both elements share stands below each element and the upload engine: it imports none of them.',
    severity: 'error',
    from: { path: '^src/elements/shared/' },
    to: { path: ['^src/elements/(file-uploader|file-list|upload-engine)/', ENTRIES] },
  },
  {
    name: 'client-elements-engine-below',
    comment:
      'The upload engine stands below <file-uploader>: settings flow down into it, and it never imports the element (what both need lives in the engine or in shared).',
    severity: 'error',
    from: { path: '^src/elements/upload-engine/' },
    to: { path: [ELEMENTS, ENTRIES] },
  },
  {
    name: 'client-elements-apart',
    comment:
      '<file-uploader> and <file-list> import nothing of each other: what both use is in shared.',
    severity: 'error',
    from: { path: '^src/elements/(file-uploader|file-list)/' },
    to: {
      path: '^src/elements/(file-uploader|file-list)/',
      pathNot: '^src/elements/$1/',
    },
  },
];

module.exports = {
  forbidden: [...clientAndElementsRules],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are edges too (see above).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // `import()` of a variable path (none in src/client or src/elements) cannot be followed.
    exclude: { path: '^(dist|node_modules)/' },
  },
};
