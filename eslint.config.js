import js from '@eslint/js'
import tseslint from 'typescript-eslint'

// Who may import whom (docs/architecture.md, "Who may import whom"). ESLint keeps one
// setting of a rule per file (the last matching block wins), so each folder gets all
// of its import limits in one list, built from these pieces. Import circles are found
// by dependency-cruiser (.dependency-cruiser.cjs), which also sees `import type`.
const NOTHING_IMPORTS_COMMANDS = {group: ['**/commands/**'], message: 'Nothing imports commands (rule 1).'}
const UI = {
  group: ['@oclif/*', '@inquirer/*', 'cli-table3', 'chalk'],
  message: 'Only commands and cli/ use oclif, prompts, tables and colours (rule 2).',
}
const SANDBOX_ONLY_DYNAMIC = {
  group: ['**/sandbox/**'],
  allowTypeImports: true,
  message:
    'Only the embedded bootstrap (cli/embedded.ts) and commands/sandbox/* load the sandbox, with import() of sandbox/index.js (rule 6).',
}
const importLimits = (...patterns) => ({'no-restricted-imports': ['error', {patterns}]})

// Rule 6 for dynamic imports, which no-restricted-imports does not see.
const SANDBOX_IMPORT = 'ImportExpression[source.value=/(^|\\/)sandbox\\//]'
const SANDBOX_INTERNAL_IMPORT = 'ImportExpression[source.value=/(^|\\/)sandbox\\/(?!index\\.js$)/]'
const SANDBOX_IMPORT_MESSAGE =
  'Only cli/embedded.ts and commands/sandbox/* load the sandbox, and only sandbox/index.js (rule 6).'

// Small pieces, so that a newcomer reads each in one screen: commands stay thin
// (parsing only; the doing is in services/, the rendering in cli/).
const FUNCTION_LINES = ['error', {max: 120, skipBlankLines: true, skipComments: true}]

export default tseslint.config(
  {ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'oclif.manifest.json']},
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // CommonJS build stand-ins (scripts/stand-ins).
    files: ['**/*.cjs'],
    languageOptions: {sourceType: 'commonjs', globals: {module: 'writable', require: 'readonly', exports: 'writable'}},
  },
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        AbortController: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        structuredClone: 'readonly',
        fetch: 'readonly',
        setImmediate: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', {argsIgnorePattern: '^_', varsIgnorePattern: '^_'}],
      'no-restricted-imports': 'off',
    },
  },
  {
    files: ['src/commands/**/*.ts'],
    rules: importLimits(SANDBOX_ONLY_DYNAMIC),
  },
  {
    files: ['src/commands/**/*.ts'],
    rules: {'max-lines': ['error', {max: 120, skipBlankLines: false, skipComments: false}]},
  },
  {
    files: ['src/cli/**/*.ts'],
    rules: importLimits(NOTHING_IMPORTS_COMMANDS, SANDBOX_ONLY_DYNAMIC),
  },
  {
    files: ['src/services/**/*.ts'],
    rules: {
      ...importLimits(NOTHING_IMPORTS_COMMANDS, SANDBOX_ONLY_DYNAMIC, UI, {
        group: ['**/cli/**', '**/profiles/**', 'conf'],
        message: 'services/ use api/, schemas/ and mesh/ only: no cli, profiles or conf (rule 2).',
      }),
      'no-console': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name=/^std(out|err)$/]",
          message: 'services/ return data; commands and cli/ print it (rule 2).',
        },
        {selector: SANDBOX_IMPORT, message: SANDBOX_IMPORT_MESSAGE},
      ],
    },
  },
  {
    files: ['src/api/**/*.ts'],
    rules: importLimits(NOTHING_IMPORTS_COMMANDS, SANDBOX_ONLY_DYNAMIC, UI, {
      group: ['conf', '**/cli/**', '**/profiles/**', '**/services/**', '**/mesh/**'],
      message: 'api/ depends only on schemas and got (rule 3).',
    }),
  },
  {
    // util/'s files import only node: modules, so schemas/ stays a leaf with them (field hints use util/closest.ts).
    files: ['src/schemas/**/*.ts'],
    rules: importLimits({
      regex: '^(?!zod(/|$)|\\./|\\.\\./util/)',
      message: "schemas/ is a leaf: zod, its own files and util/'s leaves only (rule 4).",
    }),
  },
  {
    // The read side (answers, read leniently) builds on the strict schemas beside it.
    files: ['src/schemas/read/**/*.ts'],
    rules: importLimits({
      regex: '^(?!zod(/|$)|\\./|\\.\\./(?!\\.\\./))',
      message: 'schemas/ is a leaf: zod and its own files only (rule 4).',
    }),
  },
  {
    files: ['src/util/**/*.ts', 'src/engines.ts'],
    rules: importLimits({
      regex: '^(?!node:|\\./)',
      message: 'util/ and engines.ts are leaves: they import node: modules and their own files only.',
    }),
  },
  {
    files: ['src/mesh/**/*.ts'],
    rules: importLimits({
      regex: '^(?!node:|\\./|occt-import-js$|dxf-parser$)',
      message: 'mesh/ is a leaf: node: modules, its own files and its two format readers only (rule 4).',
    }),
  },
  {
    files: ['src/sandbox/**/*.ts'],
    rules: importLimits(NOTHING_IMPORTS_COMMANDS, UI, {
      group: ['**/api/**', '**/services/**', '**/cli/**', '**/profiles/**', 'got', 'conf'],
      message: 'The sandbox never imports the client side (rule 5).',
    }),
  },
  {
    files: ['src/profiles/**/*.ts'],
    rules: importLimits(NOTHING_IMPORTS_COMMANDS, SANDBOX_ONLY_DYNAMIC, UI, {
      group: ['**/cli/**', '**/services/**', '**/api/**'],
      message: 'profiles/ read and write the configuration only.',
    }),
  },
  {
    // The help class: oclif's Help, its own files and util/'s leaves (which import node: modules only), so that loading it loads no command.
    files: ['src/help/**/*.ts'],
    rules: importLimits({
      regex: '^(?!@oclif/core$|\\./|\\.\\./util/)',
      message:
        "src/help imports oclif's Help, its own files and src/util's leaves only, so that help loads no command code.",
    }),
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/sandbox/**', 'src/services/**', 'src/cli/embedded.ts', 'src/commands/sandbox/**'],
    rules: {'no-restricted-syntax': ['error', {selector: SANDBOX_IMPORT, message: SANDBOX_IMPORT_MESSAGE}]},
  },
  {
    files: ['src/cli/embedded.ts', 'src/commands/sandbox/**/*.ts'],
    rules: {'no-restricted-syntax': ['error', {selector: SANDBOX_INTERNAL_IMPORT, message: SANDBOX_IMPORT_MESSAGE}]},
  },
  {
    files: ['src/services/**/*.ts', 'src/cli/**/*.ts', 'src/api/**/*.ts', 'src/sandbox/**/*.ts'],
    rules: {'max-lines-per-function': FUNCTION_LINES},
  },
)
