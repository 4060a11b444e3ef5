// `npm run lint` (dependency-cruiser): no import cycles, and the floors of src/ are kept: a layer imports only the layers below it.
//
//   app.ts, server.ts                       the composition root
//   routes/, mcp/, pages/                   what answers a request
//   serve/                                  the search service every search goes through
//   metrics/                                what is measured
//   http/                                   middleware
//   openapi/                                the API's description
//   auth/                                   credentials and access
//   errors.ts                               the API's error catalogue
//   search/                                 the search pipeline
//   changes/                                the change feed: its log's writer, purge, reader and views (REST and webhooks)
//   store/                                  reads and writes of OpenSearch documents
//   config/, embedding/, contract/, ground/  the ground floor: settings, embedders, the contract's shapes, small helpers,
//                                           the safe outbound fetcher (ground/outbound/) and the OpenAI-protocol core
//
// indexer/ and importer/ stand on the ground floor, store/, changes/ and search/ only; pipeline/ (following sources,
// transcribing, enriching, webhooks) on those, indexer/ and importer/; nothing below uses pipeline/. bin/ (the production command lines) may use all of those; scripts/ (development and operations
// tooling) anything; nothing of the product uses scripts/.
const ABOVE = {
  ground: ['store', 'changes', 'search', 'errors', 'auth', 'openapi', 'http', 'metrics', 'serve', 'routes', 'mcp', 'pages', 'app', 'server'],
  store: ['changes', 'search', 'errors', 'auth', 'openapi', 'http', 'metrics', 'serve', 'routes', 'mcp', 'pages', 'app', 'server'],
  changes: ['search', 'errors', 'auth', 'openapi', 'http', 'metrics', 'serve', 'routes', 'mcp', 'pages', 'app', 'server'],
  search: ['errors', 'auth', 'openapi', 'http', 'metrics', 'serve', 'routes', 'mcp', 'pages', 'app', 'server'],
  errors: ['auth', 'openapi', 'http', 'metrics', 'serve', 'routes', 'mcp', 'pages', 'app', 'server'],
  auth: ['openapi', 'http', 'metrics', 'serve', 'routes', 'mcp', 'pages', 'app', 'server'],
  openapi: ['http', 'metrics', 'serve', 'routes', 'mcp', 'pages', 'app', 'server'],
  http: ['metrics', 'serve', 'routes', 'mcp', 'pages', 'app', 'server'],
  metrics: ['serve', 'routes', 'mcp', 'pages', 'app', 'server'],
  serve: ['routes', 'mcp', 'pages', 'app', 'server'],
  routes: ['mcp', 'pages', 'app', 'server'],
  mcp: ['routes', 'pages', 'app', 'server'],
  pages: ['mcp', 'app', 'server'],
};

/** A path pattern for a floor of src/: a folder (`src/store/`) or a file (`src/errors.ts`). */
const floor = (name) => (['errors', 'app', 'server'].includes(name) ? `^src/${name}\\.ts$` : `^src/${name}/`);
/** The ground floor is four folders: settings, embedding, the shapes of the contract, and small shared helpers. */
const GROUND = '^src/(config|embedding|contract|ground)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'Modules in a cycle cannot be read, tested or moved one without the other; type-only imports count too.',
      from: {},
      to: { circular: true },
    },
    ...Object.entries(ABOVE).map(([name, above]) => ({
      name: `floors-${name}`,
      severity: 'error',
      comment: `src/${name} imports only the floors below it (see the plan at the top of .dependency-cruiser.cjs).`,
      from: { path: name === 'ground' ? GROUND : floor(name) },
      to: { path: `(${above.map(floor).join('|')})` },
    })),
    {
      name: 'indexer-floors',
      severity: 'error',
      comment: 'The indexer stands on the ground floor, store/, changes/ and search/ only.',
      from: { path: '^(indexer|importer)/' },
      to: { path: `(${ABOVE.search.map(floor).join('|')})` },
    },
    {
      name: 'pipeline-floors',
      severity: 'error',
      comment: 'The pipeline stands on the ground floor, store/, changes/, search/, indexer/ and importer/ only.',
      from: { path: '^pipeline/' },
      to: { path: `(${ABOVE.search.map(floor).join('|')})` },
    },
    {
      name: 'no-pipeline-in-api',
      severity: 'error',
      comment: 'The API serves what is indexed; following and transcribing run in the worker.',
      from: { path: '^src/' },
      to: { path: '^pipeline/' },
    },
    {
      name: 'no-pipeline-below',
      severity: 'error',
      comment: 'The importer and the indexer stand below the pipeline: the safe fetcher they share is on the ground floor (src/ground/outbound/).',
      from: { path: '^(importer|indexer)/' },
      to: { path: '^pipeline/' },
    },
    {
      name: 'no-command-lines-in-product',
      severity: 'error',
      comment: 'bin/ holds entry points over the product; the product never imports them.',
      from: { path: '^(src|indexer|importer|pipeline)/' },
      to: { path: '^bin/' },
    },
    {
      name: 'no-scripts-in-product',
      severity: 'error',
      comment: 'scripts/ are command lines over the product; the product never imports them.',
      from: { path: '^(src|indexer|importer|pipeline|bin)/' },
      to: { path: '^scripts/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // `import type` and type-only specifiers are dependencies too (they vanish only from the compiled output).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
