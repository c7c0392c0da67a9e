/**
 * startingAnswers and planInit (src/train/init-plan.ts), the steps of `geolab train init` around the
 * wizard, called as the TUI would, on a fresh workspace (the demo's `train` and `eval` splits).
 */
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { RECIPE } from '../../src/train/init.js';
import { planInit, startingAnswers } from '../../src/train/init-plan.js';
import { openWorkspace } from '../../src/store/index.js';
import { tempDir } from '../helpers/fixtures.js';

describe('startingAnswers', () => {
  it("starts from the recipe and the workspace's train split, its panorama cache and a free run name", async () => {
    const ws = await openWorkspace(tempDir());
    try {
      const { answers, choices } = await startingAnswers(ws, {}, false);
      expect(choices.map((c) => c.name)).toEqual(expect.arrayContaining(['train', 'eval']));
      expect(answers).toEqual({
        name: 'run1',
        model: RECIPE.model,
        split: 'train',
        tasks: undefined,
        envUrl: undefined,
        panos: choices.find((c) => c.name === 'train')!.panos,
        maxSteps: RECIPE.maxSteps,
        gpus: RECIPE.gpus,
        python: undefined,
        secrets: undefined,
      });
    } finally {
      ws.close();
    }
  });

  it('reads no splits for a remote server unless a wizard will offer them; the out folder names the run', async () => {
    const ws = await openWorkspace(tempDir());
    try {
      const remote = { envUrl: 'http://127.0.0.1:8000', split: 'geo', out: join(tempDir(), 'italy') };
      const quiet = await startingAnswers(ws, remote, false);
      expect(quiet.choices).toEqual([]);
      expect(quiet.answers).toMatchObject({ name: 'italy', split: 'geo', envUrl: 'http://127.0.0.1:8000', panos: undefined });
      expect((await startingAnswers(ws, remote, true)).choices.length).toBeGreaterThan(0);
    } finally {
      ws.close();
    }
  });
});

describe('planInit', () => {
  it("makes the config in <workspace>/train/<name>, or refuses a split the workspace does not serve", async () => {
    const ws = await openWorkspace(tempDir());
    try {
      const { answers, choices } = await startingAnswers(ws, {}, false);
      const plan = await planInit(ws, answers, choices);
      expect(plan.outDir).toBe(join(ws.paths.train, 'run1'));
      expect(plan.file).toBe(join(resolve(plan.outDir), 'config.json'));
      expect(plan.config.grpo.max_steps).toBe(RECIPE.maxSteps);
      const wrong = planInit(ws, { ...answers, split: 'nowhere' }, choices);
      await expect(wrong).rejects.toBeInstanceOf(UsageError);
      await expect(wrong).rejects.toThrow(/--split nowhere is not a task set of this workspace; it has .*train/);
    } finally {
      ws.close();
    }
  });
});
