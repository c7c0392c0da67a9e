/**
 * `geolab eval run` against endpoints that answer badly, through the real binary and real loopback
 * servers: one answering HTTP 500 to everything is unusable (exit 3, named; retries and failures
 * counted in the summary and sweep.json), a healthy one counts nothing; a one-character API key
 * plays a whole sweep whose records validate, and a key holding `"` and `\` echoed in JSON error
 * bodies reaches nothing geolab stores or prints (docs/secrets.md, docs/sweeps.md).
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseEpisodeRecord } from '../../src/core/episode.js';
import { geolab, spawnGeolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { startScriptedOpenAI, toolCall, toolSteps, type ChatRequestBody, type ScriptedOpenAI, type ScriptedReply } from '../helpers/scripted-openai.js';

/** One workspace for the file: the demo panoramas are drawn once. */
const HOME = tempDir('geolab-eval-failures-');
const SWEEP_TIMEOUT_MS = 240_000;
const CHILD_TIMEOUT_MS = 200_000;
const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** Look, then guess. */
const play = toolSteps(toolCall('look', { heading_deg: 90 }), toolCall('guess', { lat: 45.5, lon: 9.2 }));

async function openai(script: (body: ChatRequestBody, n: number) => ScriptedReply): Promise<ScriptedOpenAI> {
  const s = await startScriptedOpenAI({ script, models: [{ id: 'qwen-vl' }] });
  servers.push(s);
  return s;
}

/** Short retries and back-offs, few turns: a failing endpoint costs milliseconds. */
const sweep = (extra: string[]) => ['eval', 'run', '--limit', '2', '--passes', '2', '--max-turns', '2', '--retries', '2', '--retry-delay', '0.01', '--concurrency', '1', ...extra];

type Status = { status: string; models: { name: string; done: number; failed: number; aborted: number; total: number; retries: number; provider_errors: number }[] };
const statusOf = (out: string) => JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')) as Status;

function records(out: string): Record<string, unknown>[] {
  return (readdirSync(out, { recursive: true }) as string[])
    .filter((f) => f.endsWith('episodes.jsonl'))
    .flatMap((f) => readFileSync(join(out, f), 'utf8').split('\n').filter((l) => l.trim()))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** Every file of a folder but images, byte for byte (the workspace's database too: keys are ASCII). */
function treeText(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile() && !/\.(png|jpe?g|webp)$/.test(d.name))
    .map((d) => readFileSync(join(d.parentPath, d.name), 'latin1'))
    .join('\n');
}

describe('an endpoint that answers HTTP 500 to everything', () => {
  it('fails every episode as unusable, counts retries and failures, and exits 3 naming the endpoint', async () => {
    const dir = tempDir('geolab-failures-');
    const out = join(dir, 'board');
    const broken = await openai(() => ({ status: 500, body: { error: { message: 'CUDA out of memory' } } }));
    const r = await spawnGeolab(sweep(['--model', 'qwen-vl', '--base-url', broken.baseUrl, '--out', out]), { home: HOME, timeoutMs: CHILD_TIMEOUT_MS }).done;
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(`qwen-vl: the model endpoint at ${broken.baseUrl} is unusable: none of the 2 requests of this episode got a reply after retries (the last HTTP 500: `);
    expect(r.stderr).not.toMatch(/\n\s+at /);

    const rows = records(out);
    expect(rows).toHaveLength(4);
    for (const row of rows) expect(row).toMatchObject({ failure: 'unreachable', error: expect.stringContaining(broken.baseUrl) });
    const status = statusOf(out);
    expect(status.status).toBe('failed');
    const [qwen] = status.models;
    expect(qwen).toMatchObject({ name: 'qwen-vl', done: 0, failed: 4, aborted: 0, total: 4 });
    // An episode that played sent two requests, each tried three times; the others found the replica out for a while.
    expect(qwen!.retries).toBeGreaterThanOrEqual(4);
    expect(qwen!.retries % 4).toBe(0);
    expect(qwen!.provider_errors).toBe(qwen!.retries / 2);
    expect(r.stdout).toContain(`qwen-vl: 0/4 recorded, 4 failed, 0 aborted, ${qwen!.retries} retries, ${qwen!.provider_errors} provider-error turns`);
    expect(broken.requests.length).toBe(qwen!.retries + qwen!.provider_errors);
  }, SWEEP_TIMEOUT_MS);

  it('counts the retries of a request that found the endpoint gone, which no turn records', async () => {
    const dir = tempDir('geolab-failures-');
    const out = join(dir, 'board');
    const dying = await openai(() => ({ die: true }));
    const r = await spawnGeolab(sweep(['--model', 'qwen-vl', '--base-url', dying.baseUrl, '--out', out, '--limit', '1', '--passes', '1']), { home: HOME, timeoutMs: CHILD_TIMEOUT_MS }).done;
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain(`qwen-vl: the model endpoint at ${dying.baseUrl} is gone: 3 attempts got no answer`);
    // The first attempt killed the server; the two retries found the port closed.
    expect(statusOf(out).models[0]).toMatchObject({ done: 0, failed: 1, retries: 2, provider_errors: 0 });
  }, SWEEP_TIMEOUT_MS);

  it('a healthy endpoint counts no retry, provider error, failure or abort, and exits 0', async () => {
    const dir = tempDir('geolab-failures-');
    const out = join(dir, 'board');
    const healthy = await openai(play);
    const r = await spawnGeolab(sweep(['--model', 'qwen-vl', '--base-url', healthy.baseUrl, '--out', out, '--json']), { home: HOME, timeoutMs: CHILD_TIMEOUT_MS }).done;
    expect(r.code, r.stderr).toBe(0);
    const counts = { name: 'qwen-vl', done: 4, failed: 0, aborted: 0, total: 4, retries: 0, provider_errors: 0 };
    expect(statusOf(out)).toMatchObject({ status: 'done', models: [counts] });
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'done', models: [counts] });
  }, SWEEP_TIMEOUT_MS);
});

describe('API keys in a sweep', () => {
  it('a one-character key plays the whole sweep: records validate, an echoed header loses it, the short key is said once', async () => {
    const dir = tempDir('geolab-failures-');
    const out = join(dir, 'board');
    // The first request is refused with an error body echoing the request's headers.
    const server = await openai((body, n) => (n === 0 ? { status: 400, body: { error: { message: 'bad request', headers: { authorization: 'Bearer x' }, api_key: 'x' } } } : play(body)));
    const r = await spawnGeolab(sweep(['--model', 'qwen-vl', '--base-url', server.baseUrl, '--api-key-env', 'FAKE_API_KEY', '--out', out]), {
      home: HOME,
      env: { FAKE_API_KEY: 'x' },
      timeoutMs: CHILD_TIMEOUT_MS,
    }).done;
    expect(r.code, r.stderr).toBe(0);
    expect(server.requests.every((q) => q.headers.authorization === 'Bearer x')).toBe(true);
    expect(r.stderr.match(/shorter than 8 characters/g)).toHaveLength(1);
    expect(r.stderr).toContain('geolab: the key in $FAKE_API_KEY is shorter than 8 characters');
    expect(r.stderr).toContain('cannot be scrubbed from free text');

    const rows = records(out);
    expect(rows).toHaveLength(4);
    for (const row of rows) expect(parseEpisodeRecord(row), JSON.stringify(row).slice(0, 400)).toMatchObject({ ok: true, kind: 'completed' });
    const text = JSON.stringify(rows);
    // No name of a member was touched (`task.inde[redacted]`), only the echoed key.
    expect(text.match(/\[redacted\]/g)?.length, 'redactions').toBeGreaterThan(0);
    expect(text.replaceAll('\\"authorization\\":\\"Bearer [redacted]\\"', '').replaceAll('\\"api_key\\":\\"[redacted]\\"', '').includes('[redacted]')).toBe(false);
    expect(text.includes('Bearer x')).toBe(false);
    expect(statusOf(out).models[0]).toMatchObject({ done: 4, failed: 0, provider_errors: 1, retries: 0 });
  }, SWEEP_TIMEOUT_MS);

  it('a key holding " and \\ echoed in JSON error bodies is redacted, raw and escaped, in what geolab stores and prints', async () => {
    const dir = tempDir('geolab-failures-');
    const out = join(dir, 'board');
    const key = 'sk-"quo\\ted"-0123456789';
    const forms = [key, JSON.stringify(key).slice(1, -1), JSON.stringify(JSON.stringify(key)).slice(1, -1)];
    // The error body echoes the request with its headers, as a JSON object and as JSON text in a string.
    const echo = (status: number): ScriptedReply => ({
      status,
      body: { error: { message: `rejected: ${JSON.stringify({ headers: { authorization: `Bearer ${key}` } })}`, headers: { authorization: `Bearer ${key}` } } },
    });
    const flaky = await openai((body, n) => (n === 0 ? echo(400) : play(body)));
    const refusing = await openai(() => echo(401));
    const models = join(dir, 'models.json');
    writeFileSync(
      models,
      JSON.stringify([
        { name: 'flaky', model: 'qwen-vl', base_url: flaky.baseUrl, api_key_env: 'ODD_API_KEY' },
        { name: 'refusing', model: 'qwen-vl', base_url: refusing.baseUrl, api_key_env: 'ODD_API_KEY' },
      ]),
    );
    const r = await spawnGeolab(sweep(['--models', models, '--out', out, '--json']), { home: HOME, env: { ODD_API_KEY: key }, timeoutMs: CHILD_TIMEOUT_MS }).done;
    expect(r.code, r.stderr).toBe(3);
    expect(refusing.requests[0]!.headers.authorization).toBe(`Bearer ${key}`);
    expect(r.stderr).toContain(`refusing: the model endpoint at ${refusing.baseUrl} refused the request (HTTP 401: `);
    expect(r.stderr).toContain('check the key in $ODD_API_KEY');
    expect(r.stderr).toContain('Bearer [redacted]');

    const listed = geolab(['episodes', 'list', '--json', '--limit', '0'], { home: HOME });
    expect(listed.code, listed.stderr).toBe(0);
    const flakyRow = records(out).find((row) => row.model_name === 'flaky' && JSON.stringify(row).includes('HTTP 400'));
    expect(flakyRow, 'the provider error turn is recorded').toBeDefined();
    const shown = geolab(['episodes', 'show', String(flakyRow!.episode_id), '--json'], { home: HOME });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('[redacted]');
    const everything = [r.stdout, r.stderr, listed.stdout, shown.stdout, treeText(out), treeText(HOME)].join('\n');
    for (const form of forms) {
      expect(everything).not.toContain(form);
      // Nor any piece of 8 or more of it.
      for (let i = 0; i + 8 <= form.length; i++) expect(everything, form.slice(i, i + 8)).not.toContain(form.slice(i, i + 8));
    }
  }, SWEEP_TIMEOUT_MS);
});
