// Import-cycle check of `npm run lint` (dependency-cruiser): src/, indexer/ and scripts/ must form no cycle.
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
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // `import type` and type-only specifiers are dependencies too (they vanish only from the compiled output).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
