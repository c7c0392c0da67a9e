/**
 * The sweep service (src/eval/run/start.ts) called directly, as the Eval board calls it, against a
 * scripted OpenAI-compatible endpoint and the embedded environment: the same folder layout, status
 * and report as `geolab eval run` over the same tasks, and the options it keeps to be resumed.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readSweepOptions, startSweep, type SweepOptions } from '../../src/eval/run/start.js';
import { geolab, spawnGeolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { startScriptedOpenAI, toolCall, toolSteps, type ScriptedOpenAI } from '../helpers/scripted-openai.js';

const HOME = tempDir('geolab-sweep-service-');
const servers: ScriptedOpenAI[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const turn = toolSteps(toolCall('look', { heading_deg: 90 }), toolCall('guess', { lat: 45.5, lon: 9.2 }));

/** The episode files under `out`, relative to it. */
const files = (out: string) => (readdirSync(out, { recursive: true }) as string[]).filter((f) => f.endsWith('episodes.jsonl') || f.endsWith('run.json')).sort();

type Arm = { arm: string; tasks: number; k: number; episodes: number; failed: number; mean_of_k: number | null; median_km: number | null; flags: string[] };
function reportArms(out: string): Arm[] {
  const report = geolab(['eval', 'report', out, '--json'], { home: HOME });
  expect(report.code, report.stderr).toBe(0);
  return (JSON.parse(report.stdout) as { arms: Arm[] }).arms.map(({ arm, tasks, k, episodes, failed, mean_of_k, median_km, flags }) => ({ arm, tasks, k, episodes, failed, mean_of_k, median_km, flags }));
}

describe('startSweep, the service behind `geolab eval run` and the board', () => {
  it('writes the folder, sweep.json and report the command writes, prints nothing, and keeps its options', async () => {
    const server = await startScriptedOpenAI({ script: turn, models: [{ id: 'qwen-vl' }] });
    servers.push(server);
    const dir = tempDir('geolab-sweep-service-out-');
    const models = join(dir, 'models.json');
    writeFileSync(models, JSON.stringify([{ name: 'qwen', model: 'qwen-vl', base_url: server.baseUrl, concurrency: 2 }]));

    const cliOut = join(dir, 'cli');
    const cli = await spawnGeolab(['eval', 'run', '--models', models, '--limit', '2', '--passes', '2', '--out', cliOut, '--run-id', 'same', '--concurrency', '2', '--retry-delay', '0.02'], { home: HOME, timeoutMs: 200_000 }).done;
    expect(cli.code, cli.stderr).toBe(0);

    const options: SweepOptions = {
      models: [{ name: 'qwen', provider: 'openai', model: 'qwen-vl', baseUrls: [server.baseUrl], apiKeyEnv: 'OPENAI_API_KEY', maxTokens: 4096, concurrency: 2 }],
      split: 'eval', limit: 2, passes: 2, concurrency: 2, adaptive: false, maxTurns: 12, imageSizePx: 512, retries: 2, retryDelayS: 0.02,
      protocol: 'tools', tools: 'trained', env: [], out: join(dir, 'service'), runId: 'same', workspace: HOME,
    };
    const notes: string[] = [];
    const episodes: string[] = [];
    const outcome = await startSweep(options, { onNote: (t) => notes.push(t), onEpisode: (line) => episodes.push(line) });
    expect(outcome).toMatchObject({ runId: 'same', out: options.out, status: 'done', exitCode: 0, gone: [] });
    expect(outcome.summary).toEqual(['qwen: 4/4 recorded, 0 failed, 0 aborted, 0 retries, 0 provider-error turns']);
    // What the command printed is the service's outcome, line for line.
    expect(cli.stdout.trim().split('\n')).toEqual(outcome.summary);
    expect(cli.stderr).toContain(`geolab: ${notes.find((n) => n.startsWith('sweep same:'))!.replace(options.out!, cliOut)}`);
    expect(episodes).toHaveLength(4);
    expect(episodes[3]).toMatch(/^ {2}\[4\/4\] qwen task \d sample \d: \d+ km$/);

    expect(files(options.out!)).toEqual(files(cliOut));
    expect(reportArms(options.out!)).toEqual(reportArms(cliOut));
    const status = (out: string) => JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')) as { status: string; models: { name: string; done: number; total: number }[] };
    expect(status(options.out!)).toMatchObject({ status: 'done', models: [{ name: 'qwen', done: 4, total: 4 }] });
    expect(status(options.out!).models.map((m) => [m.name, m.done, m.total])).toEqual(status(cliOut).models.map((m) => [m.name, m.done, m.total]));

    // The options kept for the board's resume: the same sweep, with the tasks chosen written out.
    const kept = readSweepOptions(options.out!)!;
    expect(kept).toMatchObject({ runId: 'same', out: options.out, split: 'eval', passes: 2, indices: [0, 1], models: options.models });
    expect(kept.limit).toBeUndefined();
    // Run again with them, it resumes: nothing left to play, no episode twice.
    const again = await startSweep({ ...kept, workspace: HOME });
    expect(again.summary).toEqual(outcome.summary);
    const lines = readFileSync(join(options.out!, 'same', 'episodes.jsonl'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(4);
  }, 240_000);
});
