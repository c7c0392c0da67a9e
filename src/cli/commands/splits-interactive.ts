/**
 * `splits build --interactive`: the same choices as the flags, asked with @inquirer/prompts on a
 * terminal, then a preview of both splits; nothing is written until the user confirms. A choice
 * made with its flag is not asked. When the self-check fails, the question whose answer made it fail
 * is asked again (its flag's value, if any, as the default), keeping every other answer.
 */
import { checkbox, confirm, number } from '@inquirer/prompts';
import { GeolabError, EXIT } from '../../core/errors.js';
import type { Task } from '../../core/tasks.js';
import { buildSplits, isOfflineReady, type SplitOptions, type SplitResult } from '../../splits/build.js';
import { canonicalCountry } from '../../splits/countries.js';
import { printLine, warn } from '../output.js';
import { printCountryTable, printDropped } from './splits.js';

/** Which choices came with flags (and are therefore not asked). */
export interface GivenFlags {
  countries: boolean;
  eval: boolean;
  evalPerCountry: boolean;
  bufferKm: boolean;
  contributorExclusive: boolean;
}

/** With `json`, prompts and preview go to stderr so stdout carries only the manifest. */
export async function curateSplits(pool: readonly Task[], start: SplitOptions, given: GivenFlags, json = false): Promise<{ options: SplitOptions; result: SplitResult } | null> {
  try {
    return await ask(pool, start, given, json);
  } catch (err) {
    // Ctrl-C inside a prompt: the user interrupted, which is not an error of theirs.
    if ((err as Error).name === 'ExitPromptError') throw new GeolabError('interrupted; nothing written', EXIT.interrupted);
    throw err;
  }
}

type Question = keyof GivenFlags;

const QUESTIONS: readonly Question[] = ['countries', 'eval', 'evalPerCountry', 'bufferKm', 'contributorExclusive'];

async function ask(pool: readonly Task[], start: SplitOptions, given: GivenFlags, json: boolean): Promise<{ options: SplitOptions; result: SplitResult } | null> {
  const options = { ...start };
  const context = json ? { output: process.stderr } : undefined;
  const say = json ? warn : printLine;
  const counts = new Map<string, number>();
  for (const t of pool) {
    const c = canonicalCountry(t.country);
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  const ordered = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const question = async (q: Question): Promise<void> => {
    switch (q) {
      case 'countries': {
        const chosen = await checkbox({
          message: 'Countries (space toggles, a toggles all)',
          choices: ordered.map(([c, n]) => ({ name: `${c} (${n} in the pool)`, value: c, checked: !options.countries || options.countries.includes(c) })),
          pageSize: 15,
          required: true,
        }, context);
        options.countries = chosen.length === ordered.length ? undefined : chosen;
        return;
      }
      case 'eval':
        options.evalSize = await number({ message: 'Eval tasks (--eval)', default: options.evalSize, min: 0, step: 1, required: true }, context);
        return;
      case 'evalPerCountry':
        options.evalPerCountry = await number({ message: 'Eval tasks per country at most (--eval-per-country)', default: options.evalPerCountry, min: 0, step: 1, required: true }, context);
        return;
      case 'bufferKm':
        options.bufferKm = await number({ message: 'Buffer between the splits in km (--buffer-km)', default: options.bufferKm, min: 0, step: 'any', required: true }, context);
        return;
      case 'contributorExclusive':
        options.contributorExclusive = await confirm({ message: 'No contributor in both splits (--contributor-exclusive)?', default: options.contributorExclusive }, context);
        return;
    }
  };
  for (const q of QUESTIONS) if (!given[q]) await question(q);
  for (;;) {
    const result = buildSplits(pool, options);
    say(`\npreview: eval ${result.eval.length} tasks, train ${result.train.length} tasks`);
    printCountryTable(result, say);
    printDropped(result, say);
    for (const w of result.warnings) say(`warning: ${w}`);
    for (const problem of result.problems) say(`self-check: ${problem}`);
    if (result.problems.length === 0) {
      const write = await confirm({ message: 'Write eval.jsonl, train.jsonl and manifest.json?', default: true }, context);
      return write ? { options, result } : null;
    }
    // Back to the answer that made the self-check fail; the others stay as given.
    const failed = failedQuestion(result, options);
    if (failed === null) return { options, result };
    say('Change that answer (the others are kept):');
    await question(failed);
  }
}

/** Which answer a failed self-check goes back to, or null when no answer can mend it. */
function failedQuestion(result: SplitResult, options: SplitOptions): Question | null {
  if (result.eval.length === 0) return options.evalSize === 0 ? 'eval' : options.evalPerCountry === 0 ? 'evalPerCountry' : 'countries';
  if (result.train.length === 0) {
    const d = result.dropped;
    if (options.contributorExclusive && d.contributor > 0 && d.contributor >= d.buffer) return 'contributorExclusive';
    return d.buffer > 0 ? 'bufferKm' : 'eval';
  }
  // Too few offline-ready tasks for the eval size asked.
  if (options.requireOfflineReady && result.eval.some((t) => !isOfflineReady(t))) return 'eval';
  return null;
}
