/**
 * `npm run bench [-- --json] [-- --only PREFIX]`: every figure of docs/budgets.md this build has.
 * With --json, stdout carries exactly one JSON object {"<name>": {"median_ms", "per_s", ...}} and
 * progress goes to stderr.
 */
import { benches } from './benches.js';
import type { BenchResult } from './harness.js';

const args = process.argv.slice(2);
const json = args.includes('--json');
const onlyAt = args.indexOf('--only');
const only = onlyAt >= 0 ? args[onlyAt + 1] : undefined;
if (onlyAt >= 0 && !only) {
  process.stderr.write('bench: --only needs a name prefix\n');
  process.exit(2);
}

const results: Record<string, BenchResult> = {};
const chosen = benches.filter((b) => !only || b.name.startsWith(only));
if (chosen.length === 0) {
  process.stderr.write(`bench: no bench named ${only}*; there are: ${benches.map((b) => b.name).join(', ')}\n`);
  process.exit(2);
}
const started = performance.now();
for (const bench of chosen) {
  process.stderr.write(`bench ${bench.name} ...`);
  const start = performance.now();
  const r = await bench.run();
  process.stderr.write(` ${((performance.now() - start) / 1000).toFixed(1)} s\n`);
  results[bench.name] = r;
  if (!json) {
    const extras = Object.entries(r)
      .filter(([k]) => k !== 'median_ms' && k !== 'per_s')
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    process.stdout.write(
      `${bench.name.padEnd(24)} median ${String(r.median_ms).padStart(10)} ms  ${String(r.per_s).padStart(12)} ${bench.unit}/s  ${extras}\n`,
    );
  }
}
process.stderr.write(`bench: ${chosen.length} benches in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
if (json) process.stdout.write(JSON.stringify(results) + '\n');
