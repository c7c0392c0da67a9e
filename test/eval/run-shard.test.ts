/**
 * `geolab eval run --shard auto` with real processes: the shards of one sweep, started at once as a
 * Slurm array job or a Kubernetes Indexed Job would start them (the same command, the scheduler's
 * variables telling each its shard), write one folder side by side, and `eval report` of that folder
 * says, number by number, what the report of the same sweep played unsharded says. Two processes
 * given the same shard: the second is refused. Variables that do not add up: usage errors.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readSweepStatus } from '../../src/eval/sweep-status.js';
import { geolab, spawnGeolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { startScriptedOpenAI, toolCall, toolSteps, type ChatRequestBody, type ScriptedReply } from '../helpers/scripted-openai.js';

const HOME = tempDir('geolab-shard-');
const TASKS = 5;
const PASSES = 2;
const SHARDS = 3;
const SWEEP_TIMEOUT_MS = 300_000;
const CHILD_TIMEOUT_MS = 240_000;
/** Whatever the test runner's own environment holds, the children see only the variables a test gives. */
const NO_SCHEDULER = {
  SLURM_ARRAY_TASK_ID: '',
  SLURM_ARRAY_TASK_COUNT: '',
  SLURM_ARRAY_TASK_MIN: '',
  SLURM_ARRAY_TASK_STEP: '',
  SLURM_ARRAY_JOB_ID: '',
  JOB_COMPLETION_INDEX: '',
};
const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** Look, then guess one place: the tasks lie at different distances from it, so a task played twice or not at all shows in the numbers. */
const turn = toolSteps(toolCall('look', { heading_deg: 90 }), toolCall('guess', { lat: 45.5, lon: 9.2 }));

/** A models file naming a fresh endpoint: its token counts grow with its request count, so each sweep gets its own. */
async function modelsFor(dir: string, script: (body: ChatRequestBody) => ScriptedReply, name = 'models'): Promise<string> {
  const server = await startScriptedOpenAI({ script, models: [{ id: 'qwen-vl' }] });
  servers.push(server);
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify([{ name: 'qwen', provider: 'vllm', model: 'qwen-vl', base_url: server.baseUrl, concurrency: 1, max_tokens: 512 }]));
  return file;
}

const sweepArgs = (models: string, out: string, extra: string[] = []) => [
  'eval', 'run', '--models', models, '--limit', String(TASKS), '--passes', String(PASSES), '--out', out, '--retry-delay', '0.02', ...extra,
];

function report(out: string): unknown {
  const r = geolab(['eval', 'report', out, '--json'], { home: HOME });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

type Row = { task: { index: number; sample: number }; outcome?: unknown };

/** Every (task, sample) of the folder's episode files, by file relative to the folder. */
function layout(out: string): Record<string, string[]> {
  const files = (readdirSync(out, { recursive: true }) as string[]).filter((f) => f.endsWith('episodes.jsonl')).sort();
  return Object.fromEntries(
    files.map((f) => [
      f,
      readFileSync(join(out, f), 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as Row)
        .map((r) => `${r.task.index}/${r.task.sample}${r.outcome ? '' : ' failed'}`)
        .sort(),
    ]),
  );
}

const expectedLayout = (): Record<string, string[]> => {
  const want: Record<string, string[]> = {};
  for (let p = 0; p < PASSES; p++) {
    for (let s = 0; s < SHARDS; s++) {
      const tasks = Array.from({ length: TASKS }, (_, i) => i).filter((i) => i % SHARDS === s);
      want[`pass-${p}/shard-${s}/episodes.jsonl`] = tasks.map((i) => `${i}/${p}`).sort();
    }
  }
  return want;
};

describe('shards of one sweep from the scheduler', () => {
  it('Slurm array tasks and Kubernetes indexed pods, run at once, report what the unsharded sweep reports', async () => {
    const dir = tempDir('geolab-shard-run-');
    const models = await modelsFor(dir, turn, 'whole');

    const whole = join(dir, 'whole');
    const unsharded = await spawnGeolab(sweepArgs(models, whole, ['--run-id', 'whole-1']), { home: HOME, env: NO_SCHEDULER, timeoutMs: CHILD_TIMEOUT_MS }).done;
    expect(unsharded.code, unsharded.stderr).toBe(0);
    const expected = report(whole);
    expect(expected).toMatchObject({ arms: [{ tasks: TASKS, k: PASSES, failed: 0 }] });

    // Slurm: `--array=1-3` (indices from 1), no --run-id: the array's job id names the run.
    const slurm = join(dir, 'slurm');
    const slurmModels = await modelsFor(dir, turn, 'slurm');
    const slurmRuns = await Promise.all(
      [1, 2, 3].map(
        (id) =>
          spawnGeolab(sweepArgs(slurmModels, slurm, ['--shard', 'auto']), {
            home: HOME,
            timeoutMs: CHILD_TIMEOUT_MS,
            env: { ...NO_SCHEDULER, SLURM_ARRAY_JOB_ID: '4242', SLURM_ARRAY_TASK_ID: String(id), SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_COUNT: String(SHARDS) },
          }).done,
      ),
    );
    slurmRuns.forEach((r, i) => {
      expect(r.code, r.stderr).toBe(0);
      const said = r.stderr.split('\n').filter((l) => l.includes('--shard auto'));
      expect(said).toEqual([`geolab: --shard auto: playing shard ${i}/${SHARDS} (0-based), from SLURM_ARRAY_TASK_ID=${i + 1}, SLURM_ARRAY_TASK_MIN=1, SLURM_ARRAY_TASK_COUNT=${SHARDS}`]);
      expect(r.stderr).toContain('geolab: sweep slurm-4242:');
    });
    expect(layout(slurm)).toEqual(expectedLayout());
    expect(readdirSync(slurm).filter((f) => f.endsWith('.lock'))).toEqual([]);
    // Each shard wrote its own status; read together they are the whole sweep's.
    expect(readdirSync(slurm).filter((f) => f.startsWith('sweep')).sort()).toEqual(['sweep-shard-0.json', 'sweep-shard-1.json', 'sweep-shard-2.json']);
    expect(readSweepStatus(slurm)).toMatchObject({ run_id: 'slurm-4242', status: 'done', models: [{ done: TASKS * PASSES, total: TASKS * PASSES, failed: 0 }] });
    expect(report(slurm)).toEqual(expected);

    // Kubernetes Indexed Job: JOB_COMPLETION_INDEX, and --shards for the completions.
    const kube = join(dir, 'kube');
    const kubeModels = await modelsFor(dir, turn, 'kube');
    const kubeRuns = await Promise.all(
      [0, 1, 2].map(
        (index) =>
          spawnGeolab(sweepArgs(kubeModels, kube, ['--shard', 'auto', '--shards', String(SHARDS), '--run-id', 'kube-1']), {
            home: HOME,
            timeoutMs: CHILD_TIMEOUT_MS,
            env: { ...NO_SCHEDULER, JOB_COMPLETION_INDEX: String(index) },
          }).done,
      ),
    );
    kubeRuns.forEach((r, i) => {
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(`geolab: --shard auto: playing shard ${i}/${SHARDS} (0-based), from JOB_COMPLETION_INDEX=${i}, --shards ${SHARDS}\n`);
    });
    expect(layout(kube)).toEqual(expectedLayout());
    expect(report(kube)).toEqual(expected);

    // A shard run again resumes: nothing left to play, nothing changed.
    const again = await spawnGeolab(sweepArgs(kubeModels, kube, ['--shard', 'auto', '--shards', String(SHARDS)]), { home: HOME, timeoutMs: CHILD_TIMEOUT_MS, env: { ...NO_SCHEDULER, JOB_COMPLETION_INDEX: '1' } }).done;
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('(resuming: ');
    expect(report(kube)).toEqual(expected);
  }, SWEEP_TIMEOUT_MS);

  it('a shard already being played refuses a second process (exit 2), and other shards go on beside it', async () => {
    const dir = tempDir('geolab-shard-lock-');
    const out = join(dir, 'board');
    const models = await modelsFor(dir, () => ({ hang: true }));
    const slurm = (id: number) => ({ ...NO_SCHEDULER, SLURM_ARRAY_TASK_ID: String(id), SLURM_ARRAY_TASK_COUNT: String(SHARDS) });
    const holder = spawnGeolab(sweepArgs(models, out, ['--shard', 'auto', '--run-id', 'b-1', '--timeout', '60']), { home: HOME, env: slurm(1), timeoutMs: CHILD_TIMEOUT_MS });
    const lock = join(out, 'shard-1.lock');
    while (!existsSync(join(out, 'sweep-shard-1.json'))) await new Promise((r) => setTimeout(r, 20));
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: holder.child.pid, shard: `1/${SHARDS}` });
    const before = layout(out);

    const twice = await spawnGeolab(sweepArgs(models, out, ['--shard', 'auto', '--run-id', 'b-1']), { home: HOME, env: slurm(1), timeoutMs: CHILD_TIMEOUT_MS }).done;
    expect(twice.code, twice.stderr).toBe(2);
    expect(twice.stderr).toContain(`geolab: refusing to start: shard 1 of ${out} is already being played (PID ${holder.child.pid}`);
    expect(twice.stderr).toContain('two processes were given the same shard');
    const explicit = await spawnGeolab(sweepArgs(models, out, ['--shard', `1/${SHARDS}`, '--run-id', 'b-1']), { home: HOME, env: NO_SCHEDULER, timeoutMs: CHILD_TIMEOUT_MS }).done;
    expect(explicit.code, explicit.stderr).toBe(2);
    // An unsharded sweep does not write a folder shards are writing.
    const unsharded = await spawnGeolab(sweepArgs(models, out, ['--run-id', 'b-1']), { home: HOME, env: NO_SCHEDULER, timeoutMs: CHILD_TIMEOUT_MS }).done;
    expect(unsharded.code, unsharded.stderr).toBe(2);
    expect(unsharded.stderr).toContain(`a sharded sweep (PID ${holder.child.pid}`);
    // The holder's lock and files are as they were.
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: holder.child.pid });
    expect(layout(out)).toEqual(before);

    holder.child.kill('SIGINT');
    expect((await holder.done).code).toBe(130);
    expect(existsSync(lock)).toBe(false);
  }, SWEEP_TIMEOUT_MS);
});

describe('--shard auto usage errors', () => {
  const run = (env: Record<string, string>, extra: string[] = []) =>
    geolab(['eval', 'run', '--model', 'm', '--base-url', 'http://127.0.0.1:1/v1', '--out', join(tempDir('geolab-shard-usage-'), 'o'), '--shard', 'auto', ...extra], {
      home: HOME,
      env: { ...NO_SCHEDULER, ...env },
    });

  it.each([
    [{}, [], 'neither a Slurm array job (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT) nor a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, with --shards N)'],
    [{ SLURM_ARRAY_TASK_ID: 'two', SLURM_ARRAY_TASK_COUNT: '3' }, [], 'SLURM_ARRAY_TASK_ID must be an integer >= 0, got "two"'],
    [{ SLURM_ARRAY_TASK_ID: '1', SLURM_ARRAY_TASK_COUNT: '3.5' }, [], 'SLURM_ARRAY_TASK_COUNT must be an integer >= 1, got "3.5"'],
    [{ SLURM_ARRAY_TASK_ID: '3', SLURM_ARRAY_TASK_COUNT: '3' }, [], 'shard 3 from SLURM_ARRAY_TASK_ID=3, SLURM_ARRAY_TASK_COUNT=3 is not below the 3 shards'],
    [{ SLURM_ARRAY_TASK_ID: '4', SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_COUNT: '3' }, [], 'shard 3 from SLURM_ARRAY_TASK_ID=4, SLURM_ARRAY_TASK_MIN=1, SLURM_ARRAY_TASK_COUNT=3 is not below'],
    [{ SLURM_ARRAY_TASK_ID: '1' }, [], 'SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not; give --shards N'],
    [{ SLURM_ARRAY_TASK_ID: '1', SLURM_ARRAY_TASK_COUNT: '3' }, ['--shards', '4'], '--shards 4 disagrees with SLURM_ARRAY_TASK_COUNT=3'],
    [{ JOB_COMPLETION_INDEX: '0' }, [], 'JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job), which does not tell the number of shards; give --shards N'],
    [{ JOB_COMPLETION_INDEX: '-1' }, ['--shards', '3'], 'JOB_COMPLETION_INDEX must be an integer >= 0, got "-1"'],
    [{ JOB_COMPLETION_INDEX: '3' }, ['--shards', '3'], 'JOB_COMPLETION_INDEX=3 is not below --shards 3'],
    [{ JOB_COMPLETION_INDEX: '0', SLURM_ARRAY_TASK_ID: '0', SLURM_ARRAY_TASK_COUNT: '3' }, ['--shards', '3'], 'both SLURM_ARRAY_TASK_ID (Slurm) and JOB_COMPLETION_INDEX (Kubernetes) are set'],
  ] as [Record<string, string>, string[], string][])('%j %j: exit 2', (env, extra, message) => {
    const r = run(env, extra);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`geolab: --shard auto: ${message}`);
    expect(r.stderr).not.toContain('playing shard');
  });

  it('--shards goes only with --shard auto', () => {
    const r = geolab(['eval', 'run', '--model', 'm', '--base-url', 'http://127.0.0.1:1/v1', '--shard', '0/3', '--shards', '3'], { home: HOME, env: NO_SCHEDULER });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--shards N goes with --shard auto');
  });
});
