import { screen } from '@inquirer/testing/vitest';
import { describe, expect, it } from 'vitest';
import type { InitAnswers, SplitChoice } from '../../src/train/init.js';

// After @inquirer/testing/vitest, so the prompts it mocks are the ones the wizard imports.
const { askInit, confirmWrite } = await import('../../src/cli/commands/train-init.js');

const choices: SplitChoice[] = [
  { name: 'train', tasks: 24, countries: 14, panos: '/ws/panos', demo: true },
  { name: 'eval', tasks: 8, countries: 8, panos: '/ws/panos', demo: true },
  { name: 'world-train', tasks: 3120, countries: 61, panos: '/data/panos', demo: false },
];
const start: InitAnswers = { name: 'run1', model: 'Qwen/Qwen3.5-4B', split: 'train', panos: '/ws/panos', maxSteps: 250, gpus: 1 };
const nothingGiven = { name: false, model: false, environment: false, panos: false, maxSteps: false, gpus: false, python: false, secrets: false };

describe('train init wizard', () => {
  it('is prefilled with the recipe and offers the workspace\'s task sets with task and country counts', async () => {
    const done = askInit(start, choices, nothingGiven);
    expect(screen.getScreen()).toContain('Run name (--name)');
    expect(screen.getScreen()).toContain('run1');
    screen.type('geo-world');
    screen.keypress('enter');
    await screen.next();
    expect(screen.getScreen()).toContain('Qwen/Qwen3.5-4B');
    screen.keypress('enter');
    await screen.next();
    const menu = screen.getScreen();
    expect(menu).toContain('train  24 tasks, 14 countries (demo)');
    expect(menu).toContain('world-train  3120 tasks, 61 countries');
    expect(menu).toContain('a remote environment server (--env-url)');
    screen.keypress('down');
    screen.keypress('down');
    screen.keypress('enter');
    await screen.next();
    expect(screen.getScreen()).toContain('Panorama cache (--panos)');
    expect(screen.getScreen()).toContain('/data/panos');
    screen.keypress('enter');
    await screen.next();
    expect(screen.getScreen()).toContain('plateaued by 200-250');
    expect(screen.getScreen()).toContain('250');
    screen.keypress('enter');
    await screen.next();
    expect(screen.getScreen()).toContain('GPUs on this machine');
    screen.keypress('enter');
    await screen.next();
    expect(screen.getScreen()).toContain('Python environment');
    expect(screen.getScreen()).toContain('python3');
    screen.type('.venv/bin/python');
    screen.keypress('enter');
    await screen.next();
    expect(screen.getScreen()).toContain('Secrets the run needs, by name only');
    screen.type('hf-token');
    screen.keypress('enter');
    await screen.next();
    expect(screen.getScreen()).toContain('is not an environment variable name');
    for (let i = 0; i < 8; i++) screen.keypress('backspace');
    screen.type('HF_TOKEN, WANDB_API_KEY');
    screen.keypress('enter');
    const answers = await done;
    expect(answers).toEqual({
      name: 'geo-world',
      model: 'Qwen/Qwen3.5-4B',
      split: 'world-train',
      panos: '/data/panos',
      envUrl: undefined,
      maxSteps: 250,
      gpus: 1,
      python: '.venv/bin/python',
      secrets: ['HF_TOKEN', 'WANDB_API_KEY'],
    });
  });

  it('asks a remote server\'s URL and split, and nothing a flag answered', async () => {
    const done = askInit(start, choices, { ...nothingGiven, name: true, model: true, maxSteps: true, gpus: true, python: true, secrets: true });
    expect(screen.getScreen()).toContain('Tasks to train on');
    screen.keypress('up');
    screen.keypress('enter');
    await screen.next();
    expect(screen.getScreen()).toContain('Environment URL (--env-url)');
    screen.keypress('enter');
    await screen.next();
    expect(screen.getScreen()).toContain('Split it serves to train on (--split)');
    screen.keypress('enter');
    expect(await done).toEqual({ ...start, envUrl: 'http://127.0.0.1:8000', split: 'train' });
  });

  it('confirms before writing, and turns Ctrl-C into an interruption (exit 130)', async () => {
    const yes = confirmWrite('/runs/run1/config.json');
    expect(screen.getScreen()).toContain('Write /runs/run1/config.json?');
    screen.keypress('enter');
    expect(await yes).toBe(true);
    const interrupted = askInit(start, choices, nothingGiven);
    screen.keypress({ name: 'c', ctrl: true });
    await expect(interrupted).rejects.toMatchObject({ exitCode: 130 });
  });
});
