import js from '@eslint/js'
import tseslint from 'typescript-eslint'

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
    files: [
      'src/services/**/*.ts',
      'src/api/**/*.ts',
      'src/schemas/**/*.ts',
      'src/mesh/**/*.ts',
      'src/sandbox/**/*.ts',
      'src/profiles/**/*.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@oclif/*', 'cli-table3', '@inquirer/*'],
              message: 'Only commands and cli/ may use oclif, tables and prompts.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/sandbox/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/api/**', '**/services/**', '**/cli/**', '**/commands/**', 'got', 'conf'],
              message: 'The sandbox never imports the client side.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/api/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '@oclif/*',
                'conf',
                'cli-table3',
                'chalk',
                '**/cli/**',
                '**/profiles/**',
                '**/sandbox/**',
                '**/services/**',
              ],
              message: 'api/ depends only on schemas and got.',
            },
          ],
        },
      ],
    },
  },
)
