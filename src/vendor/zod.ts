/**
 * zod, as every module here imports it. zod is 95 ES modules, and loading them was a tenth of a
 * command's start-up (about 90 ms): the build replaces this file's output with one bundle of zod
 * (esbuild, in `npm run build`), which loads in about half that. Sources and tests use zod itself.
 */
export { z } from 'zod';
