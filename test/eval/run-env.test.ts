/**
 * `geolab eval run` over remote environment servers (real `geolab env serve` processes on loopback):
 * episodes spread over both, and one killed half-way leaves the sweep to the other, with no episode
 * recorded failed. And `--shard I/N`: two shards of one sweep write pass-<p>/shard-<i>/ without
 * overlap, pooling into the whole sweep.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, geolab, spawnGeolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { sweepRecords } from '../helpers/sweep-tree.js';
import { startScriptedOpenAI, toolCall, type ChatRequestBody, type ScriptedOpenAI, type ScriptedReply } from '../helpers/scripted-openai.js';

const HOME = tempDir('geolab-eval-run-env-');
const TIMEOUT_MS = 240_000;
/** A sweep process, killed past this (the helper's default minute is short on a loaded machine). */
const CHILD_TIMEOUT_MS = 200_000;
const children: ChildProcess[] = [];
let model: ScriptedOpenAI | undefined;
afterEach(async () => {
  children.splice(0).forEach((c) => c.exitCode === null && c.signalCode === null && c.kill('SIGKILL'));
  await model?.close();
  model = undefined;
});

function turn(body: ChatRequestBody): ScriptedReply {
  return body.messages.some((m) => m.role === 'tool') ? { toolCalls: [toolCall('guess', { lat: 10, lon: 20 })] } : { toolCalls: [toolCall('look', { heading_deg: 45 })] };
}

/** `geolab env serve --port 0` over the demo splits; resolves with its URL. */
function serve(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [BIN, 'env', 'serve', '--port', '0', '--json'], { env: { ...process.env, GEOLAB_HOME: tempDir() }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ child, url: String((JSON.parse(line) as { url: string }).url) }));
  });
}

type Row = { model_name: string; task: { index: number; sample: number }; outcome?: unknown; config: { base_url: string } };

function modelsFile(dir: string, baseUrl: string): string {
  const file = join(dir, 'models.json');
  writeFileSync(file, JSON.stringify([{ name: 'qwen', model: 'scripted', base_url: baseUrl, concurrency: 2 }]));
  return file;
}

describe('environment servers', () => {
  it('spreads episodes over the servers and goes on with the other when one is killed half-way', async () => {
    const [one, two] = await Promise.all([serve(), serve()]);
    model = await startScriptedOpenAI({ script: turn });
    const dir = tempDir('geolab-sweep-');
    const out = join(dir, 'board');
    const sweep = spawnGeolab(['eval', 'run', '--models', modelsFile(dir, model.baseUrl), '--env', one.url, '--env', two.url, '--limit', '4', '--passes', '2', '--out', out, '--retry-delay', '0.02'], { home: HOME, timeoutMs: CHILD_TIMEOUT_MS });
    // Half-way: kill the second server once it has served some episodes.
    for (;;) {
      const served = (() => {
        try {
          return sweepRecords<Row>(out).filter((r) => r.config.base_url === two.url).length;
        } catch {
          return 0;
        }
      })();
      if (served >= 1 || sweep.child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    two.child.kill('SIGKILL');
    const result = await sweep.done;
    expect(result.code, result.stderr).toBe(0);
    const all = sweepRecords<Row>(out);
    expect(all.filter((r) => r.outcome === undefined)).toEqual([]);
    expect(all.map((r) => `${r.task.index}#${r.task.sample}`).sort()).toEqual(['0#0', '0#1', '1#0', '1#1', '2#0', '2#1', '3#0', '3#1']);
    expect(result.stderr).toContain(`${two.url} taken out for a while:`);
    const servers = new Set(all.map((r) => r.config.base_url));
    expect(servers.has(one.url) && servers.has(two.url)).toBe(true);
  }, TIMEOUT_MS);
});

describe('--shard I/N', () => {
  it('two shards write pass-<p>/shard-<i>/ without overlap and pool into the whole sweep', async () => {
    model = await startScriptedOpenAI({ script: turn });
    const dir = tempDir('geolab-sweep-');
    const out = join(dir, 'board');
    const models = modelsFile(dir, model.baseUrl);
    for (const shard of ['0/2', '1/2']) {
      const r = await spawnGeolab(['eval', 'run', '--models', models, '--limit', '3', '--passes', '2', '--shard', shard, '--out', out, '--run-id', 'sharded'], { home: HOME, timeoutMs: CHILD_TIMEOUT_MS }).done;
      expect(r.code, r.stderr).toBe(0);
    }
    const files = (readdirSync(out, { recursive: true }) as string[]).filter((f) => f.endsWith('episodes.jsonl')).sort();
    expect(files).toEqual(['pass-0/shard-0/episodes.jsonl', 'pass-0/shard-1/episodes.jsonl', 'pass-1/shard-0/episodes.jsonl', 'pass-1/shard-1/episodes.jsonl']);
    const shard0 = readFileSync(join(out, 'pass-1/shard-0/episodes.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Row);
    expect(shard0.map((r) => [r.task.index, r.task.sample]).sort()).toEqual([[0, 1], [2, 1]]);
    const report = geolab(['eval', 'report', out, '--json'], { home: HOME });
    expect(report.code, report.stderr).toBe(0);
    expect((JSON.parse(report.stdout) as { arms: unknown[] }).arms).toMatchObject([{ arm: 'qwen@geolab-tools-1', tasks: 3, k: 2, flags: [] }]);
  }, TIMEOUT_MS);
});
