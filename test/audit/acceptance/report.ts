/**
 * `npx tsx test/audit/acceptance/report.ts [--no-build]`: the acceptance corpus audited by the built
 * binary, and the per-kind recall and false-positive table printed, without asserting anything (the
 * test asserts the budget). Builds the bundle (dist/) first unless --no-build.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildAcceptanceCorpus } from './corpus.js';
import { auditCorpus, formatScore, scoreCorpus } from './score.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
if (!process.argv.includes('--no-build')) {
  execFileSync(process.execPath, [`${root}scripts/build.mjs`], { cwd: root, stdio: 'inherit' });
}
const corpus = await buildAcceptanceCorpus();
const run = auditCorpus(corpus);
if (run.code !== 0 && run.code !== 1) {
  process.stderr.write(`geolab audit exited ${run.code}:\n${run.stderr}`);
  process.exit(1);
}
process.stdout.write(`${corpus.prompts.length} prompts over ${corpus.tasks.length} tasks, audited in ${run.seconds.toFixed(2)} s (${run.dir})\n\n`);
process.stdout.write(formatScore(scoreCorpus(corpus, run.findings)) + '\n');
