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

/**
 * A layer that imports nothing above it: `above` are the folders (path patterns) it may
 * not import, the entries always among them.
 */
const standsBelow = (name, comment, layer, above) => ({
  name: `client-elements-${name}`,
  comment,
  severity: 'error',
  from: { path: layer },
  to: { path: [above, ENTRIES] },
});

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
  standsBelow(
    'api-below',
    'The contract (src/api) is the ground of the client and the elements: it imports neither.',
    '^src/api/',
    '^src/(client|elements)/',
  ),
  standsBelow(
    'client-below',
    'The typed client stands below the elements: it imports none of them, nor an entry.',
    '^src/client/',
    '^src/elements/',
  ),
  standsBelow(
    'shared-below',
    'What both elements share stands below each element and the upload engine: it imports none of them.',
    '^src/elements/shared/',
    '^src/elements/(file-uploader|file-list|upload-engine)/',
  ),
  standsBelow(
    'engine-below',
    'The upload engine stands below <file-uploader>: settings flow down into it, and it never imports the element (what both need lives in the engine or in shared).',
    '^src/elements/upload-engine/',
    ELEMENTS,
  ),
  {
    name: 'client-elements-apart',
    comment:
      '<file-uploader> and <file-list> import nothing of each other: what both use is in shared.',
    severity: 'error',
    from: { path: ELEMENTS },
    to: { path: ELEMENTS, pathNot: '^src/elements/$1/' },
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
