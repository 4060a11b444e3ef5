// `npm run lint` (dependency-cruiser): no import cycles, and the floors are kept: a layer imports only the layers below it.
//
// core/ is what every program shares (the API, the worker, the importer, the command lines), floor by floor:
//   search/                                 the search pipeline
//   changes/                                the change feed: its log's writer, purge, reader and views (REST and webhooks)
//   passages/                               transcript segments → passages (pure): what the indexer stores and
//                                           enrichment cuts chapters between
//   store/                                  reads and writes of OpenSearch documents
//   library/                                the library folder, the source of truth: its layout, record checks, the one
//                                           reader, the one writer and its lock, the follow state's schema
//   config/, embedding/, contract/, ground/  the ground floor: settings, embedders, the contract's shapes, small helpers,
//                                           the safe outbound fetcher (ground/outbound/) and the OpenAI-protocol core
// src/ is the API alone, standing on core/:
//   store/                                  the API's per-request reads of the store and its memories (early-search
//                                           grants, owner hints): below every other floor of src/
//   app.ts, server.ts                       the composition root
//   routes/, mcp/, pages/                   what answers a request
//   serve/                                  the search service every search goes through, and the member reads
//                                           REST and the creator tool server share
//   metrics/                                what is measured
//   http/                                   middleware
//   openapi/                                the API's description
//   auth/                                   credentials and access
//   errors.ts                               the API's error catalogue
//
// The programs: indexer/ and importer/ stand on core/; pipeline/ (following sources, transcribing, enriching,
// webhooks) on core/, indexer/ and importer/; none of them on src/. Inside pipeline/, the steps (transcribe/,
// enrich/, webhooks/, backup/) stand alone, follow/ puts transcribe and enrich together, metrics/ (every metric of the
// worker: ingest, follow, backups) reads them all. bin/ (the production command lines) may use all of
// those; scripts/ (development and operations tooling) anything; nothing of the product uses scripts/.
const CORE = ['ground', 'library', 'store', 'passages', 'changes', 'search'];
const ABOVE = {
  apiStore: ['errors', 'auth', 'openapi', 'http', 'metrics', 'serve', 'routes', 'mcp', 'pages', 'app', 'server'],
  ground: ['library', 'store', 'passages', 'changes', 'search'],
  library: ['store', 'passages', 'changes', 'search'],
  store: ['passages', 'changes', 'search'],
  passages: ['changes', 'search'],
  changes: ['search'],
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

/** A path pattern for a floor: a folder of core/ (`core/store/`) or of src/ (`src/http/`), or a file of src/ (`src/errors.ts`). */
const floor = (name) =>
  name === 'apiStore' ? '^src/store/' : CORE.includes(name) ? `^core/${name}/` : ['errors', 'app', 'server'].includes(name) ? `^src/${name}\\.ts$` : `^src/${name}/`;
/** The ground floor is four folders: settings, embedding, the shapes of the contract, and small shared helpers. */
const GROUND = '^core/(config|embedding|contract|ground)/';

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
      comment: `${name === 'apiStore' ? 'src/store' : `${CORE.includes(name) ? 'core' : 'src'}/${name}`} imports only the floors below it (see the plan at the top of .dependency-cruiser.cjs).`,
      from: { path: name === 'ground' ? GROUND : floor(name) },
      to: { path: `(${above.map(floor).join('|')})` },
    })),
    {
      name: 'core-stands-alone',
      severity: 'error',
      comment: 'core/ is shared by every program: it imports none of them, the API included.',
      from: { path: '^core/' },
      to: { path: '^(src|indexer|importer|pipeline|bin|scripts)/' },
    },
    {
      name: 'programs-not-on-the-api',
      severity: 'error',
      comment: 'The indexer, the importer and the pipeline stand on core/; src/ is the API, which they never import.',
      from: { path: '^(indexer|importer|pipeline)/' },
      to: { path: '^src/' },
    },
    {
      name: 'no-pipeline-in-api',
      severity: 'error',
      comment: 'The API serves what is indexed; following and transcribing run in the worker.',
      from: { path: '^src/', pathNot: '^src/console/' },
      to: { path: '^pipeline/' },
    },
    {
      name: 'console-calls-what-the-commands-call',
      severity: 'error',
      comment:
        'The console (src/console/) is the operator commands in a browser: it calls what `npm run webhooks` and ' +
        '`npm run follow` call to register, and no more: the webhook registry (endpoints, sealed secrets, the test event, ' +
        "the journal) and the follow requests' queue and ownership claims. The worker's side of either (deliveries, " +
        'the run of a follow) stays out of the API.',
      from: { path: '^src/console/' },
      to: {
        path: '^pipeline/',
        pathNot: '^pipeline/(webhooks/(store|sealed|signing|payload|endpoint-url|errors|journal|test-event|reseal)|follow/(requests|ownership|errors))[.]ts$',
      },
    },
    {
      name: 'no-pipeline-below',
      severity: 'error',
      comment: 'The importer and the indexer stand below the pipeline: the safe fetcher they share is on the ground floor (core/ground/outbound/).',
      from: { path: '^(importer|indexer)/' },
      to: { path: '^pipeline/' },
    },
    {
      name: 'pipeline-floors',
      severity: 'error',
      comment:
        'Inside pipeline/: transcribe/, enrich/, webhooks/ and backup/ are the steps, each standing alone; follow/ puts transcribe and enrich together; metrics/ (the worker metrics) reads them all. No step imports follow/, metrics/ or another step.',
      from: { path: '^pipeline/(transcribe|enrich|webhooks|backup)/' },
      to: { path: '^pipeline/(follow/|metrics/|(transcribe|enrich|webhooks|backup)/)', pathNot: '^pipeline/$1/' },
    },
    {
      name: 'pipeline-follow-below-metrics',
      severity: 'error',
      comment: 'follow/ stands below metrics/, which measures it.',
      from: { path: '^pipeline/follow/' },
      to: { path: '^pipeline/metrics/' },
    },
    {
      name: 'no-command-lines-in-product',
      severity: 'error',
      comment: 'bin/ holds entry points over the product; the product never imports them.',
      from: { path: '^(core|src|indexer|importer|pipeline)/' },
      to: { path: '^bin/' },
    },
    {
      name: 'no-scripts-in-product',
      severity: 'error',
      comment: 'scripts/ are command lines over the product; the product never imports them.',
      from: { path: '^(core|src|indexer|importer|pipeline|bin)/' },
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
