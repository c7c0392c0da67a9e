import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';
import geolab from './eslint/folder-layers.js';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // The hooks rules, the React Compiler's checks among them (refs read in render, effects that set state).
  // Scoped to the TUI: React lives nowhere else, and elsewhere a parameter named `use` is no hook.
  { files: ['src/tui/**', 'test/tui/**'], ...reactHooks.configs.flat.recommended },
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // src/'s folders in layers, so no folder-level import cycle comes back (docs/architecture.md, Layers).
  { files: ['src/**'], plugins: { geolab }, rules: { 'geolab/folder-layers': 'error' } },
);
