/**
 * `geolab train init`'s steps around the answers (docs/training.md): the answers to start from (the
 * flags given, the rest the recipe's and the workspace's), then the config they make, checked
 * against the environment they name before anything is written. The CLI asks the wizard's questions
 * in between; the TUI can call the same steps.
 */
import { join, resolve } from 'node:path';
import { UsageError } from '../core/errors.js';
import type { Workspace } from '../store/index.js';
import type { TrainConfig } from './config.js';
import { freeRunName, initConfig, nameFromDir, RECIPE, splitChoices, type InitAnswers, type SplitChoice } from './init.js';

/** The answers given up front (the flags); what is missing comes from the recipe or the workspace. */
export type GivenAnswers = Partial<InitAnswers> & {
  /** The run's folder; its name is the run's when no name is given. */
  out?: string;
};

/**
 * The answers to start from, and the workspace's task sets on offer. The splits are read only when
 * something needs them: `listSplits` (a wizard), or a local split to check (no task file or URL given).
 */
export async function startingAnswers(ws: Workspace, given: GivenAnswers, listSplits: boolean): Promise<{ answers: InitAnswers; choices: SplitChoice[] }> {
  const choices = listSplits || !(given.envUrl || given.tasks) ? await splitChoices(ws) : [];
  const split = given.split ?? (choices.some((c) => c.name === RECIPE.split) || !choices[0] ? RECIPE.split : choices[0].name);
  const answers: InitAnswers = {
    name: given.name ?? (given.out ? nameFromDir(given.out) : undefined) ?? freeRunName(ws.paths.train),
    model: given.model ?? RECIPE.model,
    split,
    tasks: given.tasks,
    envUrl: given.envUrl,
    panos: given.panos ?? choices.find((c) => c.name === split)?.panos,
    maxSteps: given.maxSteps ?? RECIPE.maxSteps,
    gpus: given.gpus ?? RECIPE.gpus,
    python: given.python,
    secrets: given.secrets,
  };
  return { answers, choices };
}

export interface InitPlan {
  config: TrainConfig;
  /** The run's folder (`out`, else `<workspace>/train/<name>`). */
  outDir: string;
  /** Where the config is written: `<outDir>/config.json`, absolute. */
  file: string;
}

/** The config the answers make, its environment checked; a UsageError says what would not validate. */
export async function planInit(ws: Workspace, answers: InitAnswers, choices: readonly SplitChoice[], out?: string): Promise<InitPlan> {
  await checkEnvironment(answers, choices);
  const outDir = out ?? join(ws.paths.train, answers.name);
  const made = initConfig(answers, outDir);
  if ('problems' in made) throw new UsageError(`that config would not validate: ${made.problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`);
  return { config: made.config, outDir, file: join(resolve(outDir), 'config.json') };
}

/** The split must be served by the embedded server (a remote one is pre-flight's to check); a task file must load. */
async function checkEnvironment(answers: InitAnswers, choices: readonly SplitChoice[]): Promise<void> {
  if (answers.envUrl) return;
  if (answers.tasks) {
    const { loadTasksStrict } = await import('../tasks/load.js');
    await loadTasksStrict(answers.tasks);
    return;
  }
  if (!choices.some((c) => c.name === answers.split)) {
    throw new UsageError(`--split ${answers.split} is not a task set of this workspace; it has ${choices.map((c) => c.name).join(', ') || 'none'} (or pass --tasks FILE, or --env-url for a remote server)`);
  }
}
