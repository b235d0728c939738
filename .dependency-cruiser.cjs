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
      'api/(?!app\\.ts$|routes/|schemas/)[^/]+\\.ts$',
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
  // The route declarations and their runtime reader: the contract, read by every layer
  // above. (They are leaving api/ for folders of their own; this entry follows them.)
  { layer: 'contract', parts: ['api/schemas/'] },
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

module.exports = {
  forbidden: [...serverLayerRules, serverPlaced, contractKnowsNoServer, noCircles],
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
