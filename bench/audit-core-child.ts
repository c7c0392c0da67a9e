/**
 * The audit.prompts bench's measurement, in a process of its own as `geolab audit` runs: its heap
 * holds the audit's data and the prompts, not the corpus writer's (sharp, the borders it located
 * pins with, the JSON it wrote), whose garbage would be collected during the timed passes.
 * Prints one JSON line: {per_pass_ms, early_pass_ms, read_ms, prompts, findings, warm_up_passes}.
 *
 * Each pass audits in a new AuditSession, as a run does: every cache of texts, places and call
 * arguments empty and every task compiled anew, so no prompt is timed a second time warm; caches filled during a pass (a
 * conversation re-sends its earlier turns) count, as in a real audit. Untimed passes first load
 * the geography and let V8 optimise the code: functions called per task (33 calls a pass) reach the
 * optimising compiler only after several passes, and --trace-opt shows it still at work in the ninth;
 * until then passes run 1.5-3x slower. audit.882 counts all of that, end to end.
 */
import { auditPrompt } from '../src/audit/detect.js';
import { AuditSession } from '../src/audit/session.js';
import { readPromptFile } from '../src/audit/sources/prompt-file.js';
import { TaskLookup } from '../src/audit/sources/tasks.js';
import type { AuditPrompt } from '../src/audit/types.js';
import { loadTasksStrict } from '../src/tasks/load.js';
import { median, timeBatches } from './harness.js';

const [promptsFile, tasksFile, samples] = process.argv.slice(2) as [string, string, string];
const { tasks } = await loadTasksStrict(tasksFile);
const readStart = process.hrtime.bigint();
const prompts: AuditPrompt[] = [];
for await (const prompt of readPromptFile(promptsFile, 'prompts.jsonl')) prompts.push(prompt);
const readMs = Number(process.hrtime.bigint() - readStart) / 1e6;
let findings = 0;
const pass = () => {
  const session = new AuditSession();
  const lookup = new TaskLookup();
  for (const task of tasks) lookup.add('demo', task);
  findings = 0;
  for (const prompt of prompts) findings += auditPrompt(prompt, lookup.find(prompt.task), { session }).length;
};
/** Passes before the samples (timeBatches adds one). The first loads the geography. */
const WARM_UP_PASSES = 9;
const warmUpMs: number[] = [];
for (let i = 0; i < WARM_UP_PASSES; i++) {
  const start = process.hrtime.bigint();
  pass();
  warmUpMs.push(Number(process.hrtime.bigint() - start) / 1e6);
}
const perPass = timeBatches(pass, 1, Number(samples));
process.stdout.write(
  JSON.stringify({
    per_pass_ms: perPass.median_ms,
    // Passes 2-4, before V8 has optimised the code called once per task: what one short audit sees.
    early_pass_ms: median(warmUpMs.slice(1, 4)),
    read_ms: readMs,
    prompts: prompts.length,
    findings,
    warm_up_passes: WARM_UP_PASSES + 1,
  }) + '\n',
);
