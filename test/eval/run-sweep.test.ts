/**
 * `geolab eval run` end to end (issue 12 §1 acceptance): the real binary over the demo tasks against
 * real loopback endpoints speaking the real wire formats: two OpenAI-compatible replicas of one model
 * (one dies half-way), and an Anthropic-style Messages API. The sweep is killed half-way and run
 * again, and the tree then holds exactly passes x tasks episodes per model, each (task, sample) once,
 * which `eval report` and the harness's readers read.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { geolab, spawnGeolab, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { episodeFiles, sweepRecords } from '../helpers/sweep-tree.js';
import { harnessRead } from '../helpers/harness.js';
import { startScriptedAnthropic, type MessagesRequestBody, type ScriptedAnthropic } from '../helpers/scripted-anthropic.js';
import { startScriptedOpenAI, toolCall, toolSteps, type ChatRequestBody, type ScriptedOpenAI, type ScriptedReply } from '../helpers/scripted-openai.js';

/** One workspace for the file: the demo panoramas are drawn once. */
const HOME = tempDir('geolab-eval-run-');
const TASKS = 3;
const PASSES = 2;
/** Whole sweeps of real processes, on a machine other tests share. */
const SWEEP_TIMEOUT_MS = 240_000;
/** A sweep process, killed past this (the helper's default minute is short on a loaded machine). */
const CHILD_TIMEOUT_MS = 200_000;
const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** Look, pin, then guess: the tool results so far say which turn it is. */
const openaiTurn = toolSteps(toolCall('look', { heading_deg: 90 }), toolCall('pin', { lat: 44, lon: 12 }), toolCall('guess', { lat: 45.5, lon: 9.2 }));

function anthropicTurn(body: MessagesRequestBody): ScriptedReply {
  const results = body.messages.flatMap((m) => m.content).filter((b) => b.type === 'tool_result').length;
  if (results === 0) return { toolCalls: [toolCall('look', { heading_deg: 180, fov_deg: 60 })] };
  return { toolCalls: [toolCall('guess', { lat: 40.4, lon: -3.7 })] };
}

async function openai(script: (body: ChatRequestBody, n: number) => ScriptedReply): Promise<ScriptedOpenAI> {
  const s = await startScriptedOpenAI({ script, models: [{ id: 'qwen-vl' }] });
  servers.push(s);
  return s;
}

async function anthropic(): Promise<ScriptedAnthropic> {
  const s = await startScriptedAnthropic({ script: anthropicTurn });
  servers.push(s);
  return s;
}

function modelsFile(dir: string, specs: unknown[]): string {
  const file = join(dir, 'models.json');
  writeFileSync(file, JSON.stringify(specs));
  return file;
}

const sweepArgs = (models: string, out: string, extra: string[] = []) => [
  'eval', 'run', '--models', models, '--limit', String(TASKS), '--passes', String(PASSES), '--out', out, '--retry-delay', '0.02', '--concurrency', '2', ...extra,
];

type Row = { episode_id: string; model_name: string; task: { index: number; sample: number }; outcome?: unknown; error?: string; failure?: string };

/** Resolves once the tree holds at least n records (the sweep is then part-way). */
async function recordsAtLeast(out: string, n: number, child: { exitCode: number | null }): Promise<void> {
  for (;;) {
    if (existsSync(out) && sweepRecords<Row>(out).length >= n) return;
    if (child.exitCode !== null) throw new Error('the sweep ended before it could be stopped half-way');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Exactly passes x tasks completed episodes per model, each (task, sample) once. */
function expectComplete(out: string, models: string[]): Row[] {
  const all = sweepRecords<Row>(out);
  for (const model of models) {
    const mine = all.filter((r) => r.model_name === model);
    expect(mine.filter((r) => r.outcome === undefined), `${model}: failed records in the tree`).toEqual([]);
    const keys = mine.map((r) => `${r.task.index}#${r.task.sample}`).sort();
    const grid = Array.from({ length: TASKS }, (_, i) => Array.from({ length: PASSES }, (_, p) => `${i}#${p}`)).flat().sort();
    expect(keys, model).toEqual(grid);
  }
  expect(new Set(all.map((r) => r.model_name))).toEqual(new Set(models));
  return all;
}

function reportOf(out: string): { arms: { arm: string; tasks: number; k: number; flags: string[] }[] } {
  const report = geolab(['eval', 'report', out, '--json'], { home: HOME });
  expect(report.code, report.stderr).toBe(0);
  return JSON.parse(report.stdout) as { arms: { arm: string; tasks: number; k: number; flags: string[] }[] };
}

describe('a sweep killed half-way and run again', () => {
  it('ends with exactly passes x tasks episodes per model, spread over replicas, one of which died', async () => {
    const dir = tempDir('geolab-sweep-');
    const out = join(dir, 'board');
    const replicaA = await openai(openaiTurn);
    let servedByB = 0;
    // Dies on its seventh request: in the middle of an episode, during the first sweep.
    const replicaB = await openai((body) => (++servedByB >= 7 ? { die: true } : openaiTurn(body)));
    const claude = await anthropic();
    const models = modelsFile(dir, [
      { name: 'qwen', provider: 'vllm', model: 'qwen-vl', base_url: `${replicaA.baseUrl},${replicaB.baseUrl}`, api_key_env: 'VLLM_API_KEY', concurrency: 1, max_tokens: 512 },
      { name: 'claude', provider: 'anthropic', model: 'claude-stand-in', base_url: claude.baseUrl, concurrency: 2 },
    ]);

    const first = spawnGeolab(sweepArgs(models, out, ['--run-id', 'board-1']), { home: HOME, timeoutMs: CHILD_TIMEOUT_MS });
    await recordsAtLeast(out, 5, first.child);
    first.child.kill('SIGKILL');
    const killed = await first.done;
    expect(killed.code, killed.stderr).not.toBe(0);
    const partial = sweepRecords<Row>(out).length;
    expect(partial).toBeGreaterThanOrEqual(5);
    expect(partial).toBeLessThan(2 * TASKS * PASSES);
    // The killed process still holds the lock, by a PID that is gone.
    expect(JSON.parse(readFileSync(join(out, 'sweep.lock'), 'utf8'))).toMatchObject({ pid: first.child.pid });

    const second = await spawnGeolab(sweepArgs(models, out), { home: HOME, timeoutMs: CHILD_TIMEOUT_MS }).done;
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain(`took over ${join(out, 'sweep.lock')} from PID ${first.child.pid}, which is no longer running`);
    expect(second.stderr).toMatch(/sweep board-1: 2 models x 3 tasks x 2 passes .*\(resuming: \d+ of 12 already recorded\)/);
    expect(second.stdout).toContain('qwen: 6/6 recorded');
    expect(second.stdout).toContain('claude: 6/6 recorded');
    expect(existsSync(join(out, 'sweep.lock'))).toBe(false);

    const all = expectComplete(out, ['qwen', 'claude']);
    // The harness's layout: <out>/<run-id>/episodes.jsonl beside run.json.
    expect(episodeFiles(out)).toEqual([join(out, 'board-1', 'episodes.jsonl')]);
    expect(JSON.parse(readFileSync(join(out, 'board-1', 'run.json'), 'utf8'))).toMatchObject({ run_id: 'board-1', schema_version: 2, split: 'eval', indices: [0, 1, 2] });
    // Both replicas served qwen until B died; the episode it dropped was played again on A.
    const qwenBases = new Set(all.filter((r) => r.model_name === 'qwen').map((r) => (r as unknown as { model: { base_url: string } }).model.base_url));
    expect(qwenBases).toEqual(new Set([replicaA.baseUrl, replicaB.baseUrl]));
    expect(servedByB).toBeGreaterThanOrEqual(7);
    expect(killed.stderr + second.stderr).toContain(`${replicaB.baseUrl} taken out for a while: the model endpoint at ${replicaB.baseUrl} is gone`);
    // The Anthropic arm spoke the Messages API, images as base64 blocks.
    const sent = claude.requests.flatMap((r) => r.body.messages.flatMap((m) => m.content));
    expect(sent.some((b) => b.type === 'image' && (b.source as { type: string }).type === 'base64')).toBe(true);
    expect(all.find((r) => r.model_name === 'claude')).toMatchObject({ model: { provider: 'anthropic', model: 'claude-stand-in' } });

    const report = reportOf(out);
    expect(report.arms.map((a) => [a.arm, a.tasks, a.k, a.flags])).toEqual([
      ['claude@geolab-tools-1', TASKS, PASSES, []],
      ['qwen@geolab-tools-1', TASKS, PASSES, []],
    ]);
    const harness = harnessRead(join(out, 'board-1', 'episodes.jsonl'));
    expect(harness.code, harness.stderr).toBe(0);
    expect(JSON.parse(harness.stdout)).toEqual({ episodes: 2 * TASKS * PASSES, arms: ['claude [geolab-tools-1]', 'qwen [geolab-tools-1]'] });

    const status = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')) as Record<string, unknown>;
    expect(status).toMatchObject({ run_id: 'board-1', status: 'done', models: [{ name: 'qwen', done: 6, failed: 0, total: 6 }, { name: 'claude', done: 6, failed: 0, total: 6 }] });
    expect(Object.keys(status).sort()).toEqual(['machine', 'models', 'pid', 'run_id', 'started_at', 'status', 'updated_at']);
    expect(Object.keys((status.models as object[])[0]!).sort()).toEqual(['aborted', 'done', 'eta_s', 'failed', 'name', 'per_min', 'provider_errors', 'retries', 'total']);

    // Every episode of the tree is in the workspace too, under the sweep's run.
    const listed = geolab(['episodes', 'list', '--json', '--limit', '0', '--run', 'board-1'], { home: HOME });
    expect(listed.code, listed.stderr).toBe(0);
    const ids = new Set((JSON.parse(listed.stdout) as { episode_id: string }[]).map((r) => r.episode_id));
    for (const row of all) expect(ids.has(row.episode_id), row.episode_id).toBe(true);
    // And the workspace's report of the run is the folder's, number by number, whatever the kill left in the workspace.
    const fromWorkspace = geolab(['eval', 'report', '--workspace', '--run', 'board-1', '--json'], { home: HOME });
    expect(fromWorkspace.code, fromWorkspace.stderr).toBe(0);
    expect(JSON.parse(fromWorkspace.stdout)).toEqual(JSON.parse(geolab(['eval', 'report', out, '--json']).stdout));
  }, SWEEP_TIMEOUT_MS);
});

describe('interrupting and failing sweeps', () => {
  it('Ctrl-C stops the sweep (exit 130, lock released, status interrupted) and a re-run completes it without duplicates', async () => {
    const dir = tempDir('geolab-sweep-');
    const out = join(dir, 'board');
    const replica = await openai(openaiTurn);
    const models = modelsFile(dir, [{ name: 'qwen', model: 'qwen-vl', base_url: replica.baseUrl, concurrency: 2 }]);
    const first = spawnGeolab(sweepArgs(models, out), { home: HOME, timeoutMs: CHILD_TIMEOUT_MS });
    await recordsAtLeast(out, 2, first.child);
    first.child.kill('SIGINT');
    const interrupted = await first.done;
    expect(interrupted.code, interrupted.stderr).toBe(130);
    expect(interrupted.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(out, 'sweep.lock'))).toBe(false);
    const stopped = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')) as { status: string; models: { failed: number; aborted: number }[] };
    expect(stopped).toMatchObject({ status: 'interrupted', models: [{ failed: 0 }] });
    // Episodes cut short by the interrupt are aborted, not failed.
    const aborted = sweepRecords<Row>(out).filter((r) => r.failure === 'aborted').length;
    expect(stopped.models[0]!.aborted).toBe(aborted);
    expect(interrupted.stdout).toMatch(new RegExp(`^qwen: \\d+/6 recorded, 0 failed, ${aborted} aborted, 0 retries, 0 provider-error turns$`, 'm'));

    const again = await spawnGeolab(sweepArgs(models, out), { home: HOME, timeoutMs: CHILD_TIMEOUT_MS }).done;
    expect(again.code, again.stderr).toBe(0);
    expectComplete(out, ['qwen']);
    expect(reportOf(out).arms[0]).toMatchObject({ tasks: TASKS, k: PASSES, flags: [] });
  }, SWEEP_TIMEOUT_MS);

  it('a model with no replica left: failed records naming it, exit 3; a re-run plays them again', async () => {
    const dir = tempDir('geolab-sweep-');
    const out = join(dir, 'board');
    let served = 0;
    const dying = await openai((body) => (++served >= 4 ? { die: true } : openaiTurn(body)));
    const models = modelsFile(dir, [{ name: 'qwen', model: 'qwen-vl', base_url: dying.baseUrl, concurrency: 1 }]);
    const failed: CliResult = await spawnGeolab(sweepArgs(models, out), { home: HOME, timeoutMs: CHILD_TIMEOUT_MS }).done;
    expect(failed.code, failed.stderr).toBe(3);
    expect(failed.stderr).toContain(`the model endpoint at ${dying.baseUrl} is gone`);
    expect(failed.stderr).not.toMatch(/\n\s+at /);
    const gone = sweepRecords<Row>(out).filter((r) => r.outcome === undefined);
    expect(gone.length).toBeGreaterThan(0);
    for (const r of gone) expect(r).toMatchObject({ failure: 'unreachable', error: expect.stringContaining(dying.baseUrl) });
    expect(JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8'))).toMatchObject({ status: 'failed' });

    const live = await openai(openaiTurn);
    const again = await spawnGeolab(sweepArgs(modelsFile(dir, [{ name: 'qwen', model: 'qwen-vl', base_url: live.baseUrl }]), out), { home: HOME, timeoutMs: CHILD_TIMEOUT_MS }).done;
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/failed episodes? \(aborted, or a service gone\) will be played again/);
    expectComplete(out, ['qwen']);
    const superseded = readdirSync(out, { recursive: true }).filter((f) => String(f).endsWith('superseded.jsonl'));
    expect(superseded).toHaveLength(1);
    expect(reportOf(out).arms[0]).toMatchObject({ tasks: TASKS, k: PASSES, flags: [] });
    // The workspace's run matches the tree: the failures played again left it, kept in the workspace.
    const runId = (JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')) as { run_id: string }).run_id;
    const fromWorkspace = geolab(['eval', 'report', '--workspace', '--run', runId, '--json'], { home: HOME });
    expect(fromWorkspace.code, fromWorkspace.stderr).toBe(0);
    expect(JSON.parse(fromWorkspace.stdout)).toMatchObject({ arms: [{ tasks: TASKS, k: PASSES, failed: 0, flags: [] }] });
    // Number by number what the folder report says.
    expect(JSON.parse(fromWorkspace.stdout)).toEqual(JSON.parse(geolab(['eval', 'report', out, '--json']).stdout));
  }, SWEEP_TIMEOUT_MS);

  it('one sweep per folder: a live sweep holds the lock', async () => {
    const dir = tempDir('geolab-sweep-');
    const out = join(dir, 'board');
    const replica = await openai(() => ({ hang: true }));
    const models = modelsFile(dir, [{ name: 'qwen', model: 'qwen-vl', base_url: replica.baseUrl, concurrency: 1 }]);
    const holder = spawnGeolab(sweepArgs(models, out, ['--timeout', '30']), { home: HOME, timeoutMs: CHILD_TIMEOUT_MS });
    while (!existsSync(join(out, 'sweep.json'))) await new Promise((r) => setTimeout(r, 20));
    const refused = await spawnGeolab(sweepArgs(models, out), { home: HOME, timeoutMs: CHILD_TIMEOUT_MS }).done;
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`geolab: refusing to start: another sweep (PID ${holder.child.pid}`);
    holder.child.kill('SIGINT');
    expect((await holder.done).code).toBe(130);
  }, SWEEP_TIMEOUT_MS);
});

describe('usage', () => {
  it('names the models file and field of a bad spec, and refuses mixed flags', () => {
    const dir = tempDir('geolab-sweep-');
    const models = modelsFile(dir, [{ name: 'x', provider: 'gemini', model: 'm' }]);
    const bad = geolab(['eval', 'run', '--models', models, '--out', join(dir, 'o')], { home: HOME });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(`geolab: ${models}, field [0].provider: expected "openai" or "anthropic", got "gemini"\n`);
    const mixed = geolab(['eval', 'run', '--models', models, '--model', 'm', '--base-url', 'http://127.0.0.1:1/v1'], { home: HOME });
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('give --models FILE or --model with --base-url, not both');
    expect(existsSync(join(dir, 'o'))).toBe(false);
  });

  it('a model none of whose replicas answers stops the sweep before it starts (exit 3, naming them)', () => {
    const dir = tempDir('geolab-sweep-');
    const urls = ['http://127.0.0.1:1/v1', 'http://127.0.0.1:2/v1'];
    const r = geolab(['eval', 'run', '--model', 'qwen', '--base-url', urls.join(','), '--out', join(dir, 'o'), '--retries', '0'], { home: HOME });
    expect(r.code, r.stderr).toBe(3);
    for (const url of urls) expect(r.stderr).toContain(`cannot reach the model endpoint at ${url}/models`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(dir, 'o'))).toBe(false);
  });
});
