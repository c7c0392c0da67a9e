/**
 * The Player's retry and fork service (src/tui/decision/service.ts) over a real workspace: where the
 * form's first values come from (and that a key's variable is only offered to the endpoint it was
 * saved for), what a panel is told when the endpoint is down or the turn cannot be forked, and how a
 * reply is shown.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RetrySample } from '../../src/agent/retry.js';
import type { CompletedEpisode } from '../../src/core/episode.js';
import { saveEpisode } from '../../src/store/episodes.js';
import { imagePath, sniffImageMime, storeImage } from '../../src/store/images.js';
import type { Workspace } from '../../src/store/index.js';
import { decisionService, sampleView } from '../../src/tui/decision/service.js';
import { runTracker } from '../../src/tui/launch.js';
import type { WorkspaceSession } from '../../src/tui/workspace-session.js';
import { tempDir } from '../helpers/fixtures.js';
import { tempWorkspaces } from '../helpers/workspaces.js';
import { makeEpisode } from './fixtures.js';

const workspace = tempWorkspaces();

function session(ws: Workspace): WorkspaceSession {
  return { open: async () => ws, view: async () => Promise.reject(new Error('not used')), close: async () => {} };
}

async function withEpisode(model: CompletedEpisode['model']): Promise<{ ws: Workspace; id: string }> {
  const ws = await workspace();
  const { episode, images } = await makeEpisode();
  for (const bytes of images.values()) storeImage(ws, bytes, sniffImageMime(bytes)!);
  saveEpisode(ws.db, { ...episode, model });
  return { ws, id: episode.episode_id };
}

function watchFile(settings: Record<string, string>): string {
  const file = join(tempDir('geolab-decision-'), 'watch.json');
  writeFileSync(file, JSON.stringify(settings));
  return file;
}

const WATCH = { model: 'watched', baseUrl: 'http://127.0.0.1:8000/v1', apiKeyEnv: 'MY_KEY', protocol: 'tools', split: 'eval' };

describe('the form prefill', () => {
  it("is the record's model, endpoint and temperature; the watch form's key variable only for its own endpoint", async () => {
    const { ws, id } = await withEpisode({ provider: 'openai', model: 'qwen-test', base_url: 'http://10.0.0.5:8000/v1', temperature: 0.3 });
    const service = decisionService(session(ws), watchFile(WATCH), runTracker().track, {});
    const { values } = await service.prepare('fork', id, 2);
    expect(values).toEqual({ model: 'qwen-test', baseUrl: 'http://10.0.0.5:8000/v1', apiKeyEnv: '', temperature: '0.3' });
  });

  it('offers the key variable when the record was played at the watch form\'s endpoint', async () => {
    const { ws, id } = await withEpisode({ provider: 'openai', model: 'qwen-test', base_url: 'http://127.0.0.1:8000/v1/' });
    const service = decisionService(session(ws), watchFile(WATCH), runTracker().track, {});
    expect((await service.prepare('fork', id, 2)).values).toMatchObject({ baseUrl: 'http://127.0.0.1:8000/v1/', apiKeyEnv: 'MY_KEY', temperature: '' });
  });

  it('is the last watch settings when the record names no endpoint', async () => {
    const { ws, id } = await withEpisode(null);
    const service = decisionService(session(ws), watchFile(WATCH), runTracker().track, {});
    const preparation = await service.prepare('fork', id, 1);
    expect(preparation.values).toEqual({ model: 'watched', baseUrl: 'http://127.0.0.1:8000/v1', apiKeyEnv: 'MY_KEY', temperature: '' });
    expect(preparation.truth).toEqual({ lat: 47.2, lon: 10.55 });
  });

  it('says whether the variable holds a key, never what it holds', async () => {
    const { ws } = await withEpisode(null);
    const service = decisionService(session(ws), watchFile(WATCH), runTracker().track, { MY_KEY: 'sk-secret' });
    expect(service.isSet('MY_KEY')).toBe(true);
    expect(service.isSet('OTHER')).toBe(false);
    expect(service.isSet('sk-secret')).toBe(false);
  });
});

describe('what the panel is told', () => {
  it('an unknown episode or a turn that cannot be forked is one line', async () => {
    const { ws, id } = await withEpisode(null);
    const service = decisionService(session(ws), watchFile(WATCH), runTracker().track, {});
    await expect(service.prepare('fork', id, 9)).rejects.toThrow(/^turn 9 cannot be forked at: episode 3f9a21c0 has turns 1 to 3$/);
    await expect(service.prepare('retry', 'ffffffff', 1)).rejects.toThrow(/^no episode ffffffff in /);
  });

  it("a turn whose request's image is gone from the store is one line naming it", async () => {
    const ws = await workspace();
    const { episode, images } = await makeEpisode();
    for (const bytes of images.values()) storeImage(ws, bytes, sniffImageMime(bytes)!);
    // A record of the public harness: turn 1's request is its prompt and the reset's image.
    const turns = episode.turns.map((t) => (t.turn === 1 ? { ...t, prompt: 'Where is this? Reply with one JSON action.' } : t));
    saveEpisode(ws.db, { ...episode, turns });
    const gone = episode.turns[0]!.image_sha256!;
    rmSync(imagePath(ws, gone)!);
    const service = decisionService(session(ws), watchFile(WATCH), runTracker().track, {});
    const error = await service.prepare('retry', episode.episode_id, 1).catch((err: Error) => err);
    expect((error as Error).message).toMatch(new RegExp(`^the workspace's image store has no image ${gone} .*geolab episodes import DIR`));
    expect((error as Error).message).not.toContain('\n');
  });

  it('an endpoint that refuses connections stops the retry with one line and the fork before Live opens', async () => {
    const { ws, id } = await withEpisode(null);
    const service = decisionService(session(ws), watchFile(WATCH), runTracker().track, {});
    // Port 9 on loopback: nothing listens (the discard port is not served on test machines).
    const request = { model: 'm', baseUrl: 'http://127.0.0.1:9/v1', apiKeyEnv: '', temperature: null, samples: 2 };
    const samples: number[] = [];
    const error = await service.retry(id, 1, request, (i) => samples.push(i), new AbortController().signal).catch((err: Error) => err);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^cannot reach the model endpoint at http:\/\/127\.0\.0\.1:9\/v1\/models: connection refused/);
    expect((error as Error).message).not.toContain('\n');
    expect(samples).toEqual([]);
    const fork = await service.fork(id, 2, request);
    expect(fork).toMatchObject({ ok: false, field: null });
    expect(fork.ok ? '' : fork.message).toContain('127.0.0.1:9');
  });

  it('a fork played on by a person needs no endpoint: Live gets a person source', async () => {
    const { ws, id } = await withEpisode(null);
    const service = decisionService(session(ws), watchFile(WATCH), runTracker().track, {});
    const fork = await service.fork(id, 2, 'person');
    expect(fork.ok && fork.source).toMatchObject({ driver: 'person', who: 'you' });
  });
});

describe('a reply as the panel shows it', () => {
  const base: RetrySample = {
    action: 'look',
    arguments: { heading_deg: 90.123456, fov_deg: 30 },
    status: 'ok',
    reply: 'Looking east.',
    reasoning: null,
    tokens: { input: 900, output: 42 },
    latency_s: 1.25,
    guess: null,
    distance_km: null,
  };

  it('writes the arguments as the Player does, the output tokens, and the reply when there is no reasoning', () => {
    expect(sampleView(base)).toEqual({
      action: 'look',
      arguments: 'heading_deg=90.1235, fov_deg=30',
      reasoning: 'Looking east.',
      tokens: 42,
      latencyS: 1.25,
      guess: null,
      distanceKm: null,
      error: null,
    });
  });

  it('says why a sample has no usable action', () => {
    expect(sampleView({ ...base, action: null, arguments: null, status: 'provider_error', error: 'HTTP 503 after 3 attempts' }).error).toBe('no reply: HTTP 503 after 3 attempts');
    expect(sampleView({ ...base, status: 'unparseable', error: 'no tool call' }).error).toBe('unusable reply: no tool call');
  });
});
