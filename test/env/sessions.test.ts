import { describe, expect, it } from 'vitest';
import { SessionPool } from '../../src/env/sessions.js';
import { defaultSplit, demoSplits, loadSplitFiles, splitInfos } from '../../src/env/task-splits.js';
import { makeTask, writeJsonl } from '../helpers/fixtures.js';

describe('session pool', () => {
  it('caps concurrent sessions and frees a closed one', () => {
    let made = 0;
    const pool = new SessionPool(() => ++made, 2, 0);
    const a = pool.open('ws');
    const b = pool.open('http');
    expect(pool.open('ws')).toBeNull();
    expect([a?.episode, b?.episode]).toEqual([1, 2]);
    pool.close(a?.id as string);
    expect(pool.open('ws')?.episode).toBe(3);
    pool.shutdown();
  });

  it('ends sessions idle past the timeout and tells their owner', () => {
    let now = 0;
    const pool = new SessionPool(() => ({}), 4, 1000, () => now);
    const ended: string[] = [];
    const a = pool.open('ws');
    const b = pool.open('ws');
    if (a) a.onEnd = (why) => ended.push(`a:${why}`);
    if (b) b.onEnd = (why) => ended.push(`b:${why}`);
    now = 800;
    pool.touch(b?.id as string);
    now = 1500;
    expect(pool.sweepIdle()).toBe(1);
    expect(ended).toEqual(['a:idle']);
    expect(pool.touch(a?.id as string)).toBeUndefined();
    pool.shutdown();
    expect(ended).toEqual(['a:idle', 'b:shutdown']);
    expect(pool.size).toBe(0);
  });
});

describe('served splits', () => {
  it('serves the demo as train and eval with no shared sequence, each renumbered from 0', async () => {
    const splits = await demoSplits();
    const train = splits.get('train') ?? [];
    const evalTasks = splits.get('eval') ?? [];
    expect(train.length + evalTasks.length).toBeGreaterThanOrEqual(24);
    expect(train.map((t) => t.task_index)).toEqual(train.map((_, i) => i));
    expect(evalTasks.map((t) => t.task_index)).toEqual(evalTasks.map((_, i) => i));
    const trainSeqs = new Set(train.map((t) => t.sequence_id));
    expect(evalTasks.filter((t) => trainSeqs.has(t.sequence_id))).toEqual([]);
    expect(defaultSplit(splits)).toBe('train');
    expect(splitInfos(splits)[0]).toEqual({ name: 'train', type: 'tasks', num_tasks: train.length, default: true });
  });

  it('loads SPLIT=FILE pairs and refuses bad ones', async () => {
    const file = writeJsonl([makeTask(0), makeTask(1)]);
    const splits = await loadSplitFiles([`dev=${file}`]);
    expect(splits.get('dev')).toHaveLength(2);
    expect(defaultSplit(splits)).toBe('dev');
    await expect(loadSplitFiles([file])).rejects.toThrow(/SPLIT=FILE/);
    await expect(loadSplitFiles([`a=${file}`, `a=${file}`])).rejects.toThrow(/given twice/);
    await expect(loadSplitFiles([`x=${writeJsonl([makeTask(1)])}`])).rejects.toThrow(/not contiguous/);
  });
});
