#!/usr/bin/env node
// Entry point: runs the bundled CLI (dist/bundle/, built by `npm run build`, which `npm ci` runs through `prepare`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/bundle/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  process.stderr.write('geolab: the CLI is not built yet; run `npm run build` in the geolab folder\n');
  process.exit(2);
}
const { run } = await import(main.href);
process.exitCode = await run(process.argv);
