import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allKeys } from '../helpers/values.js';
import { getJson, postJson, startLive, WireClient, type Live } from './helpers/live.js';

let live: Live;
beforeAll(async () => {
  live = await startLive({ maxSessions: 6 });
});
afterAll(() => live.close());

function imageBytes(observation: Record<string, unknown> | undefined): Buffer {
  return Buffer.from(String(observation?.image_base64), 'base64');
}

describe('HTTP routes', () => {
  it('answers /health, /schema and /metadata', async () => {
    expect((await getJson(`${live.server.url}/health`)).json).toEqual({ status: 'healthy' });
    const schema = (await getJson(`${live.server.url}/schema`)).json;
    expect(Object.keys(schema)).toEqual(expect.arrayContaining(['action', 'observation', 'state']));
    expect(JSON.stringify(schema.action)).toContain('view_map');
    const meta = (await getJson(`${live.server.url}/metadata`)).json;
    expect(meta).toMatchObject({ name: expect.any(String) });
  });

  it('lists the demo as splits train (default) and eval', async () => {
    const { json } = await getJson(`${live.server.url}/geoguesser_env/splits`);
    expect(json).toEqual([
      { name: 'train', type: 'tasks', num_tasks: live.splits.get('train')?.length, default: true },
      { name: 'eval', type: 'tasks', num_tasks: live.splits.get('eval')?.length, default: false },
    ]);
  });

  it('serves truth-free task specs in the bodies of OpenEnv\'s Task API', async () => {
    const one = await postJson(`${live.server.url}/geoguesser_env/task`, { split: 'eval', index: 1 });
    expect(one.status).toBe(200);
    expect(Object.keys(one.json)).toEqual(['task']);
    const spec = one.json.task as Record<string, unknown>;
    expect(Object.keys(spec).sort()).toEqual(['n_frames', 'offline_ready', 'provider', 'sequence_id', 'split', 'task_id', 'task_index']);
    expect(spec).toMatchObject({ task_index: 1, split: 'eval', offline_ready: true });
    const all = await postJson(`${live.server.url}/geoguesser_env/tasks`, { split: 'train' });
    expect(Object.keys(all.json).sort()).toEqual(['env_name', 'tasks']);
    expect(all.json.env_name).toBe('geoguesser_env');
    expect(all.json.tasks).toHaveLength(live.splits.get('train')?.length as number);
    const text = JSON.stringify(all.json);
    for (const forbidden of ['lat', 'lon', 'country', 'frames', 'attribution', 'image_id']) expect(text).not.toContain(`"${forbidden}"`);
    expect(await postJson(`${live.server.url}/geoguesser_env/num_tasks`, { split: 'eval' })).toEqual({
      status: 200,
      json: { num_tasks: live.splits.get('eval')?.length },
    });
  });

  it('/task_range slices as Python does: negative bounds from the end, clamped, empty when start passes stop', async () => {
    const n = live.splits.get('train')?.length as number;
    const range = async (start: unknown, stop: unknown) => {
      const r = await postJson(`${live.server.url}/geoguesser_env/task_range`, { split: 'train', start, stop });
      expect(r.status).toBe(200);
      expect(Object.keys(r.json)).toEqual(['tasks']);
      return (r.json.tasks as { task_index: number }[]).map((t) => t.task_index);
    };
    const indices = (from: number, to: number) => Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
    expect(await range(2, 5)).toEqual([2, 3, 4]);
    expect(await range(-3, null)).toEqual(indices(n - 3, n));
    expect(await range(null, -2)).toEqual(indices(0, n - 2));
    expect(await range(-1000, 2)).toEqual([0, 1]);
    expect(await range(n - 2, n + 1000)).toEqual([n - 2, n - 1]);
    expect(await range(5, 2)).toEqual([]);
    expect(await range(-1, -3)).toEqual([]);
    expect(await range(undefined, undefined)).toEqual(indices(0, n));
    const bad = await postJson(`${live.server.url}/geoguesser_env/task_range`, { split: 'train', start: 1.5 });
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe('VALIDATION_ERROR');
  });

  it('answers 400 for an unknown split or an index out of range', async () => {
    const unknown = await postJson(`${live.server.url}/geoguesser_env/num_tasks`, { split: 'nope' });
    expect(unknown.status).toBe(400);
    expect(unknown.json.code).toBe('VALIDATION_ERROR');
    expect((await postJson(`${live.server.url}/geoguesser_env/task`, { split: 'eval', index: 999 })).status).toBe(400);
  });

  it('has no route that serves truth or raw panoramas', async () => {
    for (const path of ['/panoramas/x.jpg', '/geoguesser_env/answer', '/web', '/static/x.jpg', '/truth']) {
      expect((await fetch(live.server.url + path)).status).toBe(404);
    }
  });
});

describe('WebSocket protocol', () => {
  it('a perfect guess after one look and one pin scores exactly 0.97 on the game curve', async () => {
    const c = await WireClient.open(live.wsUrl);
    const reset = await c.reset({ split: 'eval', index: 0 });
    expect(reset.type).toBe('observation');
    const obs = reset.data.observation as Record<string, unknown>;
    expect(String(obs.prompt)).toContain('You have 24 actions.');
    expect(String(obs.prompt)).toContain('Finish with submit_guess.');
    expect(imageBytes(obs).subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    expect(reset.data.reward).toBeNull();
    expect(reset.data.done).toBe(false);
    expect(obs).toMatchObject({ distance_km: null, score: null, true_lat: null, true_lon: null });

    const look = await c.step({ op: 'look', heading_deg: 90 });
    expect(look.data.observation?.heading_deg).toBe(90);
    expect(String(look.data.observation?.feedback)).toMatch(/23 actions left\.$/);
    const pin = await c.step({ op: 'pin', lat: 10, lon: 10 });
    expect(String(pin.data.observation?.feedback)).toMatch(/^Pin 1 placed at /);
    expect(pin.data.observation?.image_kind).toBe('map');
    expect(imageBytes(pin.data.observation).subarray(1, 4).toString()).toBe('PNG');

    const truth = live.truth('eval', 0);
    const guess = await c.step({ op: 'guess', lat: truth.lat, lon: truth.lon });
    expect(guess.data.done).toBe(true);
    expect(guess.data.reward).toBeCloseTo(0.97, 12);
    expect(guess.data.observation).toMatchObject({ distance_km: 0, parsed_ok: true, true_lat: truth.lat, true_lon: truth.lon });
    expect(guess.data.metadata).toMatchObject({ country_hit: true, verdict: 'Perfect' });
    expect(guess.data.observation?.image_kind).toBe('map');

    const after = await c.step({ op: 'look', heading_deg: 0 });
    expect(after.data.done).toBe(true);
    expect(after.data.reward).toBeNull();
    expect(String(after.data.observation?.feedback)).toContain('The episode is over');
    c.close();
  });

  it('validation errors answer with their code, cost nothing and leave the session usable', async () => {
    const c = await WireClient.open(live.wsUrl);
    expect((await c.step({ op: 'look' })).data.code).toBe('EXECUTION_ERROR');
    const reset = await c.reset({ split: 'train', index: 2 });
    const before = reset.data.observation?.steps_remaining;
    const bad = [
      { op: 'look', fov_deg: 5 },
      { op: 'pin', lat: 95, lon: 0 },
      { op: 'teleport' },
      { heading_deg: 10 },
      { op: 'move', meters: 0 },
    ];
    for (const action of bad) {
      const r = await c.step(action);
      expect(r.type).toBe('error');
      expect(r.data.code).toBe('VALIDATION_ERROR');
    }
    expect((await c.send('{"type": "step", "data": ')).data.code).toBe('INVALID_JSON');
    expect((await c.send({ type: 'dance' })).data.code).toBe('UNKNOWN_TYPE');
    const state = await c.send({ type: 'state' });
    expect(state.type).toBe('state');
    const ok = await c.step({ op: 'pan', delta_deg: 45 });
    expect(ok.type).toBe('observation');
    expect(ok.data.observation?.steps_remaining).toBe((before as number) - 1);
    c.close();
  });

  it('per-turn metadata names no country and hides identity; the terminal one carries the verdict', async () => {
    const c = await WireClient.open(live.wsUrl);
    const turns = [await c.reset({ split: 'train', index: 0 }), await c.step({ op: 'pin', lat: 35.68, lon: 139.69 }), await c.step({ op: 'move', meters: 10 })];
    for (const t of turns) {
      const keys = allKeys(t.data.metadata);
      expect(keys.filter((k) => /country|task_id|sequence|guess/i.test(k))).toEqual([]);
    }
    const end = await c.step({ op: 'guess', lat: 0, lon: 0 });
    expect(end.data.metadata).toMatchObject({ country: live.splits.get('train')?.[0]?.country, guess_country: null });
    c.close();
  });

  it('sends metadata beside the observation and inside it, with the public environment\'s bookkeeping', async () => {
    const c = await WireClient.open(live.wsUrl);
    const frames: unknown[] = [];
    for (const send of [() => c.reset({ split: 'train', index: 0 }), () => c.step({ op: 'move', meters: 10 }), () => c.step({ op: 'look', heading_deg: 30 })]) {
      const t = await send();
      expect(t.data.observation?.metadata).toEqual(t.data.metadata);
      expect(t.data.metadata).toMatchObject({ split: 'train', backend: 'panorama', episode_mode: 'agentic', street_detail: 'off' });
      expect(t.data.metadata).not.toHaveProperty('task_id');
      expect(t.data.metadata?.frame_index).toBe((await c.send({ type: 'state' })).data.frame_index);
      frames.push(t.data.metadata?.frame_index);
    }
    expect(frames[1]).not.toBe(frames[0]);
    const truth = live.truth('train', 0);
    const end = await c.step({ op: 'guess', lat: truth.lat, lon: truth.lon });
    expect(end.data.observation?.metadata).toEqual(end.data.metadata);
    expect(end.data.metadata).toMatchObject({ episode_mode: 'agentic', frame_index: frames[2], country: live.splits.get('train')?.[0]?.country });
    c.close();
  });

  it('reset data with an unknown key is a VALIDATION_ERROR naming it and the accepted keys', async () => {
    const c = await WireClient.open(live.wsUrl);
    const bad = await c.reset({ split: 'eval', task_index: 1 });
    expect(bad.type).toBe('error');
    expect(bad.data.code).toBe('VALIDATION_ERROR');
    expect(bad.data.message).toContain('"task_index"');
    expect(bad.data.message).toContain('accepted keys are split, index, seed, episode_id');
    expect((await c.reset({ split: 'eval', index: 1, seed: null })).type).toBe('observation');
    c.close();
  });

  it('answers MCP tools/list and tools/call', async () => {
    const c = await WireClient.open(live.wsUrl);
    await c.reset({ split: 'train', index: 1 });
    const list = await c.send({ type: 'mcp', data: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
    expect(list.type).toBe('mcp');
    const names = ((list.data.result as { tools: { name: string }[] }).tools ?? []).map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['look', 'pan', 'zoom', 'move', 'place_pin', 'view_map', 'list_pins', 'clear_pins', 'measure', 'reverse_geocode', 'submit_guess']),
    );
    const call = await c.send({ type: 'mcp', data: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'pan', arguments: { delta_deg: 30 } } } });
    const text = JSON.stringify(call.data.result);
    expect(text).toMatch(/actions left/);
    c.close();
  });

  it('keeps concurrent episodes isolated', async () => {
    const [a, b] = await Promise.all([WireClient.open(live.wsUrl), WireClient.open(live.wsUrl)]);
    await Promise.all([a.reset({ split: 'train', index: 0 }), b.reset({ split: 'eval', index: 1 })]);
    const [ra, rb] = await Promise.all([a.step({ op: 'look', heading_deg: 10 }), b.step({ op: 'look', heading_deg: 200 })]);
    expect(ra.data.observation?.heading_deg).toBe(10);
    expect(rb.data.observation?.heading_deg).toBe(200);
    const sa = await a.send({ type: 'state' });
    const sb = await b.send({ type: 'state' });
    expect(JSON.stringify(sa.data)).not.toEqual(JSON.stringify(sb.data));
    a.close();
    b.close();
  });

  it('a message over 1 MiB closes only its own connection with 1009', async () => {
    const other = await WireClient.open(live.wsUrl);
    await other.reset({ split: 'train', index: 0 });
    const big = await WireClient.open(live.wsUrl);
    big.ws.send(JSON.stringify({ type: 'step', data: { op: 'look', pad: 'x'.repeat(10 * 1024 * 1024) } }));
    expect((await big.waitClosed()).code).toBe(1009);
    expect((await other.step({ op: 'pan', delta_deg: 10 })).type).toBe('observation');
    other.close();
  });

  it('survives a client that disconnects mid-episode and frees its session', async () => {
    const c = await WireClient.open(live.wsUrl);
    await c.reset({ split: 'train', index: 3 });
    c.ws.send(JSON.stringify({ type: 'step', data: { op: 'look', heading_deg: 33 } }));
    c.ws.terminate();
    await new Promise((r) => setTimeout(r, 300));
    expect((await getJson(`${live.server.url}/health`)).json).toEqual({ status: 'healthy' });
    const d = await WireClient.open(live.wsUrl);
    expect((await d.reset({ split: 'train', index: 3 })).type).toBe('observation');
    d.close();
  });

  it('refuses connections past the cap with CAPACITY_REACHED, then closes', async () => {
    const small = await startLive({ maxSessions: 2 });
    try {
      const a = await WireClient.open(small.wsUrl);
      const b = await WireClient.open(small.wsUrl);
      const c = await WireClient.open(small.wsUrl);
      const refused = await c.next();
      expect(refused).toMatchObject({ type: 'error', data: { code: 'CAPACITY_REACHED' } });
      await c.waitClosed();
      a.close();
      await a.waitClosed();
      await new Promise((r) => setTimeout(r, 100));
      const d = await WireClient.open(small.wsUrl);
      expect((await d.reset({})).type).toBe('observation');
      b.close();
      d.close();
    } finally {
      await small.close();
    }
  });

  it('out-of-range index and unknown split are errors; a seed wraps', async () => {
    const c = await WireClient.open(live.wsUrl);
    expect((await c.reset({ split: 'eval', index: 999 })).data.code).toBe('VALIDATION_ERROR');
    expect((await c.reset({ split: 'nope', index: 0 })).data.code).toBe('VALIDATION_ERROR');
    const n = live.splits.get('eval')?.length as number;
    const wrapped = await c.reset({ split: 'eval', seed: n + 1 });
    expect(wrapped.type).toBe('observation');
    c.close();
  });
});

describe('stateful HTTP sessions', () => {
  it('opens, steps, reads state and deletes a session', async () => {
    const opened = await postJson(`${live.server.url}/sessions`, { split: 'eval', index: 2 });
    expect(opened.status).toBe(200);
    const id = opened.json.session_id as string;
    expect(Object.keys(opened.json)).toEqual(expect.arrayContaining(['session_id', 'observation', 'reward', 'done', 'metadata']));
    const step = await postJson(`${live.server.url}/sessions/${id}/step`, { action: { op: 'zoom', fov_deg: 40 } });
    expect((step.json.observation as Record<string, unknown>).fov_deg).toBe(40);
    const bad = await postJson(`${live.server.url}/sessions/${id}/step`, { action: { op: 'zoom', fov_deg: 400 } });
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe('VALIDATION_ERROR');
    expect((await getJson(`${live.server.url}/sessions/${id}/state`)).status).toBe(200);
    expect((await fetch(`${live.server.url}/sessions/${id}`, { method: 'DELETE' })).status).toBe(200);
    expect((await postJson(`${live.server.url}/sessions/${id}/step`, { action: { op: 'pan', delta_deg: 1 } })).status).toBe(404);
  });

  it('HTTP answers carry metadata in both places; unknown keys in session bodies are a VALIDATION_ERROR', async () => {
    const refused = await postJson(`${live.server.url}/sessions`, { split: 'eval', task_index: 2 });
    expect(refused.status).toBe(400);
    expect(refused.json.code).toBe('VALIDATION_ERROR');
    expect(String(refused.json.message)).toContain('"task_index"');
    const opened = await postJson(`${live.server.url}/sessions`, { split: 'eval', index: 2 });
    const id = opened.json.session_id as string;
    expect((opened.json.observation as Record<string, unknown>).metadata).toEqual(opened.json.metadata);
    expect(opened.json.metadata).toMatchObject({ split: 'eval', backend: 'panorama', episode_mode: 'agentic', street_detail: 'off' });
    expect((opened.json.metadata as Record<string, unknown>).frame_index).toBe((await getJson(`${live.server.url}/sessions/${id}/state`)).json.frame_index);
    const extra = await postJson(`${live.server.url}/sessions/${id}/step`, { action: { op: 'pan', delta_deg: 5 }, session: id });
    expect(extra.status).toBe(400);
    expect(extra.json).toMatchObject({ code: 'VALIDATION_ERROR', message: expect.stringContaining('"session"') });
    expect(String(extra.json.message)).toContain('action');
    const step = await postJson(`${live.server.url}/sessions/${id}/step`, { action: { op: 'pan', delta_deg: 5 } });
    expect(step.json.observation).toMatchObject({ steps_remaining: 23, metadata: step.json.metadata });
    await fetch(`${live.server.url}/sessions/${id}`, { method: 'DELETE' });
  });

  it('stateless /reset answers once; /step points to sessions', async () => {
    const r = await postJson(`${live.server.url}/reset`, { split: 'train', index: 0 });
    expect(r.status).toBe(200);
    expect(r.json.done).toBe(false);
    const s = await postJson(`${live.server.url}/step`, { action: { op: 'look' } });
    expect(s.status).toBe(400);
    expect(String(s.json.message)).toContain('/sessions');
  });

  it('rejects malformed JSON bodies and oversized ones', async () => {
    const res = await fetch(`${live.server.url}/sessions`, { method: 'POST', body: '{oops' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe('INVALID_JSON');
    const big = await fetch(`${live.server.url}/sessions`, { method: 'POST', body: 'x'.repeat(2 * 1024 * 1024) }).catch(() => null);
    if (big) expect(big.status).toBe(413);
    expect((await getJson(`${live.server.url}/health`)).json).toEqual({ status: 'healthy' });
  });
});
