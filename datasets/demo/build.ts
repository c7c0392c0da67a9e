/**
 * Regenerates the demo dataset: `npx tsx datasets/demo/build.ts` rewrites tasks.jsonl next to this
 * file; `--panoramas DIR` also renders every frame's panorama into DIR (normally they are made
 * lazily on first use).
 */
import { renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ensureAllDemoPanoramas } from '../../src/demo/cache.js';
import { buildDemoTasks, toJsonl } from '../../src/demo/tasks.js';

const tasks = buildDemoTasks();
const target = fileURLToPath(new URL('./tasks.jsonl', import.meta.url));
writeFileSync(`${target}.tmp`, toJsonl(tasks));
renameSync(`${target}.tmp`, target);
console.error(`wrote ${tasks.length} tasks to ${target}`);

const dirFlag = process.argv.indexOf('--panoramas');
if (dirFlag !== -1) {
  const dir = process.argv[dirFlag + 1];
  if (!dir) throw new Error('--panoramas needs a directory');
  const paths = await ensureAllDemoPanoramas(dir, tasks, {
    onProgress: (done, total) => process.stderr.write(`\r${done}/${total} panoramas`),
  });
  console.error(`\n${paths.length} panoramas in ${dir}`);
}
