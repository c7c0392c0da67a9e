/**
 * zod, as every module here imports it. zod is 95 ES modules, and loading them one by one was a
 * tenth of a command's start-up (about 90 ms); the build (scripts/build.mjs) bundles zod into the
 * CLI's bundle with the rest, so nothing depends on this file any more but the imports through it.
 */
export { z } from 'zod';
