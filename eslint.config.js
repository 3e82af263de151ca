import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.data/**', 'coverage/**', 'bench/results/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', URL: 'readonly', fetch: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', window: 'readonly', document: 'readonly', navigator: 'readonly', localStorage: 'readonly', sessionStorage: 'readonly', location: 'readonly', __dirname: 'readonly', require: 'readonly', module: 'writable' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  // One way to pause: `import { setTimeout as sleep } from 'node:timers/promises'`. A home-made
  // `new Promise((resolve) => setTimeout(resolve, ms))` hid fixed waits under names test/platform/timing-limits
  // did not know (`settle`), and 50-odd copies of it had crept in. Only an executor whose body is
  // `setTimeout(<name>, …)` is refused: one that keeps the handle to clear it (`waited = setTimeout(…)`) or
  // runs code when the timer fires is not a plain pause. Browser scripts (public/*.js) have no node:timers.
  {
    files: ['**/*.ts', '**/*.mjs'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "NewExpression[callee.name='Promise'] > ArrowFunctionExpression > CallExpression.body[callee.name='setTimeout'][arguments.0.type='Identifier']",
          message: "Pause with `import { setTimeout as sleep } from 'node:timers/promises'` and `await sleep(ms)`, not a Promise wrapped around setTimeout.",
        },
      ],
    },
  },
  // Scripts served to browsers as they are (no build step).
  { files: ['apps/**/public/*.js', 'libs/**/public/*.js'], languageOptions: { sourceType: 'script', globals: { URLSearchParams: 'readonly', HTMLElement: 'readonly', KeyboardEvent: 'readonly' } } },
);
