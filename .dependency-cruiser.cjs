/**
 * Import circles, checked by `npm run lint` (eslint's import plugins skip
 * `import type`, and a circle through a type is still a knot to untie).
 * Who may import whom is in eslint.config.js.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A module must not reach itself through its imports (type-only imports included).',
      from: {},
      to: {circular: true},
    },
  ],
  options: {
    doNotFollow: {path: 'node_modules'},
    tsPreCompilationDeps: true,
    tsConfig: {fileName: 'tsconfig.json'},
  },
}
