import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { demoSplits } from '../../src/env/task-splits.js';
import { sliceRange, taskApi, TASK_API_PATHS } from '../../src/env/server/task-api.js';

describe('the Task API on its own, without HTTP', () => {
  it('slices exactly as Python\'s slice(start, stop).indices(length) does', () => {
    const bounds = [null, -9, -4, -1, 0, 1, 3, 4, 9];
    const cases = [0, 1, 4].flatMap((length) => bounds.flatMap((start) => bounds.map((stop) => [length, start, stop] as const)));
    const script = [
      'import json, sys',
      'out = []',
      'for n, a, b in json.load(sys.stdin):',
      '    s, e, _ = slice(a, b).indices(n)',
      '    out.append([s, max(s, e)])',
      'print(json.dumps(out))',
    ].join('\n');
    const py = spawnSync('python3', ['-c', script], { input: JSON.stringify(cases), encoding: 'utf8', timeout: 30_000 });
    expect(py.status, py.stderr).toBe(0);
    const expected = JSON.parse(py.stdout) as [number, number][];
    expect(cases.map(([length, start, stop]) => sliceRange(length, start, stop))).toEqual(expected);
    expect(sliceRange(4, 1.5, null)).toMatch(/start and stop must be integers or null.*1\.5/);
  });

  it('answers each route as a status and a body, errors in the server\'s {code, message} shape', async () => {
    const splits = await demoSplits();
    const evalTasks = splits.get('eval') ?? [];
    expect(TASK_API_PATHS).toEqual(['num_tasks', 'task', 'tasks', 'task_range'].map((r) => `/geoguesser_env/${r}`));
    expect(taskApi(splits, '/geoguesser_env/num_tasks', { split: 'eval' })).toEqual({ status: 200, body: { num_tasks: evalTasks.length } });
    expect(taskApi(splits, '/geoguesser_env/num_tasks', {})).toEqual({ status: 200, body: { num_tasks: splits.get('train')?.length } });
    const range = taskApi(splits, '/geoguesser_env/task_range', { split: 'eval', start: -2 });
    expect(range.status).toBe(200);
    expect((range.body as { tasks: { task_index: number }[] }).tasks.map((t) => t.task_index)).toEqual(
      evalTasks.slice(-2).map((t) => t.task_index),
    );
    expect(taskApi(splits, '/geoguesser_env/task', { split: 'eval', index: evalTasks.length })).toEqual({
      status: 400,
      body: { code: 'VALIDATION_ERROR', message: `index ${evalTasks.length} is out of range for split eval (0..${evalTasks.length - 1})` },
    });
    const unknown = taskApi(splits, '/geoguesser_env/tasks', { split: 'nope' });
    expect(unknown).toEqual({ status: 400, body: { code: 'VALIDATION_ERROR', message: 'unknown split "nope": served are train, eval' } });
  });
});
