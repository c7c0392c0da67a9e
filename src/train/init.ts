/**
 * What `geolab train init` writes: a run's config from a few answers (flags or the wizard's), the
 * rest the recipe's (docs/training.md), validated before anything is written and written resolved, every
 * default spelled out. The splits offered are the workspace's, as its embedded server serves them.
 */
import { existsSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { UsageError } from '../core/errors.js';
import type { Workspace } from '../store/index.js';
import { CONFIG_FILE, writeTrainConfig } from './config-file.js';
import { TRAIN_CONFIG_VERSION, derive, parseTrainConfig, type Derived, type TrainConfig } from './config.js';

const RUN_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** A split the embedded environment can serve from this workspace. */
export interface SplitChoice {
  name: string;
  tasks: number;
  countries: number;
  /** Where its panoramas are (the task set's cache, the `panos` setting, or the workspace's). */
  panos: string;
  /** The demo's: its panoramas are drawn as needed. */
  demo: boolean;
}

export async function splitChoices(ws: Workspace): Promise<SplitChoice[]> {
  const [{ workspaceSplits }, { getTaskSet }, { panoramaCache }] = await Promise.all([
    import('../env/task-splits.js'),
    import('../store/task-sets.js'),
    import('../store/settings.js'),
  ]);
  const served = await workspaceSplits(ws);
  const countries = ws.db.prepare('SELECT COUNT(DISTINCT country) AS n FROM tasks WHERE set_id = ?');
  return [...served.sizes].map(([name, tasks]) => {
    const set = getTaskSet(ws.db, name);
    if (set) return { name, tasks, countries: (countries.get(set.id) as { n: number }).n, panos: panoramaCache(ws.db, ws.paths.panoramas, undefined, set.panos_dir), demo: false };
    // Only the demo's own splits have no task set; they are small enough to read.
    const loaded = served.load([name]);
    const demoTasks = loaded.splits.get(name) ?? [];
    return { name, tasks, countries: new Set(demoTasks.map((t) => t.country)).size, panos: loaded.panoramas.get(name) ?? ws.paths.panoramas, demo: true };
  });
}

/** The choices a run's config is made of; everything else is the recipe's. */
export interface InitAnswers {
  name: string;
  model: string;
  split: string;
  /** A task file served as the split, instead of the workspace's task set. */
  tasks?: string;
  /** Panorama cache of a local environment. */
  panos?: string;
  /** A remote environment's URL; none: the embedded server, started by `train launch`. */
  envUrl?: string;
  maxSteps: number;
  gpus: number;
  /** The trainer's interpreter: a venv's python with the pinned requirements (default python3 on PATH). */
  python?: string;
  /** Names (never values) of the environment variables the run needs, e.g. HF_TOKEN. */
  secrets?: string[];
}

/** "HF_TOKEN, WANDB_API_KEY" or "HF_TOKEN WANDB_API_KEY" as names; empty: none. */
export function parseSecretNames(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Why a list of secret names is not one, or undefined. */
export function secretNamesProblem(names: readonly string[]): string | undefined {
  const bad = names.find((n) => !/^[A-Z_][A-Z0-9_]*$/.test(n));
  return bad === undefined ? undefined : `"${bad}" is not an environment variable name (A-Z, 0-9, _; the name, never the value)`;
}

/** A path to an interpreter (it has a slash) is made absolute; a bare command stays to be found on PATH. */
export function resolvePython(python: string): string {
  return python.includes('/') ? resolve(python) : python;
}

export const RECIPE = { model: 'Qwen/Qwen3.5-4B', maxSteps: 250, gpus: 1, split: 'train' } as const;

/** The first `runN` with no folder under `trainDir`. */
export function freeRunName(trainDir: string): string {
  for (let n = 1; ; n++) if (!existsSync(join(trainDir, `run${n}`))) return `run${n}`;
}

/** A run name from an --out folder's name, when it is one. */
export function nameFromDir(dir: string): string | undefined {
  const name = basename(resolve(dir));
  return RUN_NAME.test(name) ? name : undefined;
}

/** The config the answers make, or the problems that keep it from validating (by field). */
export function initConfig(answers: InitAnswers, outDir: string): { config: TrainConfig } | { problems: { field: string; message: string }[] } {
  return parseTrainConfig({
    version: TRAIN_CONFIG_VERSION,
    name: answers.name,
    output_dir: resolve(outDir),
    model: answers.model,
    env: answers.envUrl
      ? { mode: 'remote', url: answers.envUrl, split: answers.split }
      : {
          mode: 'local',
          split: answers.split,
          tasks: answers.tasks ? [`${answers.split}=${resolve(answers.tasks)}`] : [],
          panos: answers.panos === undefined ? undefined : resolve(answers.panos),
        },
    grpo: { max_steps: answers.maxSteps },
    gpus: answers.gpus,
    ...(answers.python ? { python: resolvePython(answers.python) } : {}),
    ...(answers.secrets ? { secrets: answers.secrets } : {}),
  });
}

/** Where init writes, refusing to replace a config unless told to. */
export function writeRunConfig(outDir: string, config: TrainConfig, force: boolean): string {
  const file = join(resolve(outDir), CONFIG_FILE);
  if (existsSync(file) && !force) throw new UsageError(`${file} exists; pass --force to overwrite it, or choose another --out / --name`);
  writeTrainConfig(file, config);
  return file;
}

/** The numbers a user checks before spending GPU hours, in words. */
export function describeDerived(config: TrainConfig, d: Derived = derive(config)): string[] {
  const g = config.grpo;
  const per = d.tasksPerStep === 1 ? '1 task' : `${d.tasksPerStep} tasks`;
  return [
    `${g.max_steps} steps x ${per} (${g.num_generations} completions each, ${d.completionsPerStep} per step) = ${d.tasksTotal} tasks drawn`,
    `${d.stepsPerGeneration} optimizer steps per generation batch of ${g.generation_batch_size}; ${config.gpus} GPU${config.gpus === 1 ? '' : 's'}`,
    `${d.checkpoints} checkpoints (every ${g.save_steps} steps) under ${config.output_dir}`,
    `recipe: LoRA r=${config.lora.r} alpha=${config.lora.alpha} on ${config.lora.target_modules.join(',')}, lr ${g.learning_rate}, temperature ${g.temperature}, ` +
      `beta ${g.beta}, ${config.episode.max_turns} turns, ${config.episode.view_px} px views, completions up to ${g.max_completion_length} tokens (the rest is in the config)`,
  ];
}
