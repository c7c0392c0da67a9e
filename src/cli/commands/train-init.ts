/**
 * `train init`'s wizard on a terminal: the answers a run's config is made of, prefilled with the
 * recipe, the environment chosen from the workspace's task sets (or a remote server). A choice
 * made with its flag is not asked again. Nothing is written until the user confirms.
 */
import { confirm, input, number, select } from '@inquirer/prompts';
import { EXIT, GeolabError } from '../../core/errors.js';
import { httpUrlProblem } from '../../train/config.js';
import { parseSecretNames, secretNamesProblem, type InitAnswers, type SplitChoice } from '../../train/init.js';

/** Which answers came with flags (and are therefore not asked). */
export interface InitGiven {
  name: boolean;
  model: boolean;
  /** --split, --tasks or --env-url. */
  environment: boolean;
  panos: boolean;
  maxSteps: boolean;
  gpus: boolean;
  python: boolean;
  secrets: boolean;
}

const REMOTE = '\0remote';

/** With `json`, prompts go to stderr so stdout carries only the result. */
export async function askInit(start: InitAnswers, choices: readonly SplitChoice[], given: InitGiven, json = false): Promise<InitAnswers> {
  return interruptible(() => ask(start, choices, given, json));
}

export async function confirmWrite(file: string, json = false): Promise<boolean> {
  return interruptible(() => confirm({ message: `Write ${file}?`, default: true }, json ? { output: process.stderr } : undefined));
}

async function interruptible<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    // Ctrl-C inside a prompt: the user interrupted, which is not an error of theirs.
    if ((err as Error).name === 'ExitPromptError') throw new GeolabError('interrupted; nothing written', EXIT.interrupted);
    throw err;
  }
}

type Context = { output: NodeJS.WritableStream } | undefined;

async function ask(start: InitAnswers, choices: readonly SplitChoice[], given: InitGiven, json: boolean): Promise<InitAnswers> {
  const context = json ? { output: process.stderr } : undefined;
  const answers = { ...start };
  if (!given.name) {
    answers.name = await input(
      { message: 'Run name (--name)', default: answers.name, validate: (v) => /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/.test(v) || 'letters, digits, "_", "-", "." (at most 64)' },
      context,
    );
  }
  if (!given.model) answers.model = await input({ message: 'Base model (--model)', default: answers.model, validate: (v) => v.trim() !== '' || 'a model id or path' }, context);
  if (!given.environment) await askEnvironment(answers, choices, given, context);
  if (!given.panos && !answers.envUrl && !answers.tasks) {
    const chosen = choices.find((c) => c.name === answers.split);
    const note = chosen?.demo ? ', demo panoramas are drawn there' : '';
    answers.panos = await input({ message: `Panorama cache (--panos${note})`, default: answers.panos ?? chosen?.panos }, context);
  }
  if (!given.maxSteps) {
    answers.maxSteps = await number({ message: 'Optimizer steps (--max-steps; the published run plateaued by 200-250)', default: answers.maxSteps, min: 1, step: 1, required: true }, context);
  }
  if (!given.gpus) answers.gpus = await number({ message: 'GPUs on this machine to train on (--gpus)', default: answers.gpus, min: 1, step: 1, required: true }, context);
  if (!given.python) answers.python = await askPython(answers.python, context);
  if (!given.secrets) answers.secrets = await askSecrets(answers.secrets, context);
  return answers;
}

/** A task set of the workspace, or a remote server and the split it serves; sets `split`, `envUrl` and maybe `panos`. */
async function askEnvironment(answers: InitAnswers, choices: readonly SplitChoice[], given: InitGiven, context: Context): Promise<void> {
  const picked = await select(
    {
      message: 'Tasks to train on (--split, or --env-url for a remote server)',
      choices: [
        ...choices.map((c) => ({ name: `${c.name}  ${c.tasks} tasks, ${c.countries} countries${c.demo ? ' (demo)' : ''}`, value: c.name })),
        { name: 'a remote environment server (--env-url)', value: REMOTE },
      ],
      default: choices.some((c) => c.name === answers.split) ? answers.split : undefined,
      pageSize: 12,
    },
    context,
  );
  if (picked === REMOTE) {
    answers.envUrl = await input({ message: 'Environment URL (--env-url)', default: 'http://127.0.0.1:8000', validate: (v) => httpUrlProblem(v) ?? true }, context);
    answers.split = await input({ message: 'Split it serves to train on (--split)', default: answers.split, validate: (v) => v.trim() !== '' || 'a split name' }, context);
  } else {
    answers.split = picked;
    answers.envUrl = undefined;
    if (!given.panos) answers.panos = choices.find((c) => c.name === picked)?.panos;
  }
}

async function askPython(current: string | undefined, context: Context): Promise<string> {
  return input(
    {
      message: "Python environment: the trainer's interpreter, e.g. .venv/bin/python with src/train/python/requirements.txt installed (--python)",
      default: current ?? 'python3',
      validate: (v) => v.trim() !== '' || 'an interpreter path or command',
    },
    context,
  );
}

async function askSecrets(current: string[] | undefined, context: Context): Promise<string[]> {
  const names = await input(
    {
      message: 'Secrets the run needs, by name only, e.g. HF_TOKEN (--secrets; empty for none)',
      default: (current ?? []).join(','),
      validate: (v) => secretNamesProblem(parseSecretNames(v)) ?? true,
    },
    context,
  );
  return parseSecretNames(names);
}
