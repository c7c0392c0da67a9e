/**
 * The CommonJS packages geolab loads at start-up, loaded with `require` rather than `import`.
 *
 * An `import` of a CommonJS module makes Node run its export scanner (cjs-module-lexer) over the
 * module's source, and over every module it re-exports, to find named exports; `require` does not.
 * For sharp, better-sqlite3 and ws that scan cost more than loading them (measured: ~180 ms of CPU
 * to require the four below against ~330-540 ms to import them on a loaded 2-core machine). Each is
 * a function, so a command requires only the packages it uses, when it first needs one.
 */
import { createRequire } from 'node:module';
import type Sharp from 'sharp';
import type BetterSqlite3 from 'better-sqlite3';
import type Exifr from 'exifr';

const require = createRequire(import.meta.url);

export function sharpModule(): typeof Sharp {
  return require('sharp') as typeof Sharp;
}

export function sqliteModule(): typeof BetterSqlite3 {
  return require('better-sqlite3') as typeof BetterSqlite3;
}

export function wsModule(): typeof import('ws') {
  return require('ws') as typeof import('ws');
}

export function exifrModule(): typeof Exifr {
  return require('exifr') as typeof Exifr;
}
