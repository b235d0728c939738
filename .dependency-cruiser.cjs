/**
 * Import rules of `src`, checked by test/architecture/layers.test.ts (and by hand with
 * `npx depcruise src --config .dependency-cruiser.cjs`). Every import counts: type-only
 * ones, since they still tie two modules' meanings together, and lazy `import()` ones,
 * since a chunk that imports back from its loader is a circle all the same.
 */

// ---------------------------------------------------------------------------------------
// The service's layers (docs/development.md, "The service's layers"). From the top: the
// start-up, which alone knows everything; HTTP; the domain; the rules; the stores; the
// ground. A folder may import its own layer's folders only downward in the order given,
// and any folder of a lower layer; never one above it. The wire contract (`src/api`) is
// below them all.
// ---------------------------------------------------------------------------------------

/** Top to bottom: each entry is one folder (or file) of src/server, a regex of its path. */
const SERVER_LAYERS = [
  // Start-up and the commands (`admin backup`, `admin restore`): they may know everything.
  { layer: 'start', parts: ['cli\\.ts$', 'index\\.ts$', 'start/', 'admin/'] },
  {
    layer: 'http',
    // The app (the route table), the routes, what routes share, the CDN, the context.
    parts: [
      'api/app\\.ts$',
      'api/routes/',
      'api/(?!app\\.ts$|routes/)[^/]+\\.ts$',
      'cdn/',
      // /healthz and /readyz, answered on both ports.
      'health/',
      // tus 1.0 (`/v1/tus`): its routes and headers over the uploads domain.
      'tus/',
      'context\\.ts$',
      'http/',
    ],
  },
  { layer: 'domain', parts: ['uploads/', 'imports/', 'ingest/', 'files/', 'events/', 'variants/'] },
  { layer: 'rules', parts: ['rules/'] },
  // metrics/: the instance's counters, told of events by every layer above; it reads none.
  { layer: 'stores', parts: ['cache/', 'rate-limit/', 'db/', 'storage/', 'metrics/'] },
  // The contract, read by every layer above: the runtime reader of the generated document
  // (what the running service checks requests with), then the build-time route
  // declarations it takes only erased types from.
  { layer: 'contract', parts: ['contract-reader/', 'contract/'] },
  { layer: 'ground', parts: ['ground/'] },
];

const server = (part) => `^src/server/${part}`;

/** Every part in order, top first, with its layer's name. */
const SERVER_PARTS = SERVER_LAYERS.flatMap(({ layer, parts }) =>
  parts.map((part) => ({ layer, path: server(part) })),
);

/**
 * One rule per part: it imports nothing above it, neither a higher layer nor a folder
 * listed before it in its own layer.
 */
const serverLayerRules = SERVER_PARTS.slice(1).map((part, index) => ({
  name: `server-layers: ${part.layer} ${part.path} imports upward`,
  comment: `src/server ${part.layer} (${part.path}) may import only what stands below it`,
  severity: 'error',
  from: { path: part.path },
  to: { path: SERVER_PARTS.slice(0, index + 1).map(({ path }) => path) },
}));

/** Every file of src/server stands in one part, so a new folder is placed on purpose. */
const serverPlaced = {
  name: 'server-layers: a file of src/server is in no layer',
  comment: 'add its folder to SERVER_LAYERS in .dependency-cruiser.cjs',
  severity: 'error',
  from: {},
  to: { path: '^src/server/', pathNot: SERVER_PARTS.map(({ path }) => path) },
};

/** The wire contract is shared with the element and the client: it knows no service. */
const contractKnowsNoServer = {
  name: 'server-layers: src/api imports the service',
  severity: 'error',
  from: { path: '^src/api/' },
  to: { path: '^src/server/' },
};

// ---------------------------------------------------------------------------------------
// Everywhere in src: no import circle, lazy import() edges included.
// ---------------------------------------------------------------------------------------

const noCircles = {
  name: 'no-circular',
  comment: 'what two modules share lives in a third; a lazy chunk and its loader alike',
  severity: 'error',
  from: { path: '^src/' },
  to: { circular: true },
};

// ---------------------------------------------------------------------------------------
// src/client and src/elements (the browser side).
// ---------------------------------------------------------------------------------------

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
    '^src/elements/(file-uploader|file-list|upload-engine|image-editor)/',
  ),
  standsBelow(
    'editor-below',
    "The image editor (<file-uploader>'s on-use chunks: the waiting rows and the dialog) stands below the elements and beside the engine: it imports neither, only what they share.",
    '^src/elements/image-editor/',
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
  forbidden: [
    ...serverLayerRules,
    serverPlaced,
    contractKnowsNoServer,
    noCircles,
    ...clientAndElementsRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.d\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    moduleSystems: ['es6', 'cjs'],
  },
};
