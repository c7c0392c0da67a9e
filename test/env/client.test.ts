import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEnvironment } from '../../src/agent/agent-run.js';
import { ServiceError } from '../../src/core/errors.js';
import { EmbeddedEnvClient } from '../../src/env/client/embedded.js';
import { RemoteEnvClient } from '../../src/env/client/remote.js';
import type { EnvClient } from '../../src/env/client/types.js';
import { startServer } from '../../src/env/server.js';
import { EnvError } from '../../src/env/types.js';
import { tempWorkspaces } from '../helpers/workspaces.js';
import { startLive, type Live } from './helpers/live.js';

let live: Live;
beforeAll(async () => {
  live = await startLive();
});
afterAll(() => live.close());

const clients: [string, () => EnvClient][] = [
  ['embedded', () => new EmbeddedEnvClient(live.env)],
  ['remote', () => new RemoteEnvClient(live.server.url)],
];

describe.each(clients)('%s client', (_kind, make) => {
  it('plays an episode with typed observations', async () => {
    const client = make();
    const reset = await client.reset({ split: 'eval', index: 1 });
    expect(reset.observation.image_kind).toBe('view');
    const pan = await client.step({ op: 'pan', delta_deg: 90 });
    expect(pan.observation.steps_remaining).toBe(reset.observation.steps_remaining - 1);
    const truth = live.truth('eval', 1);
    const end = await client.step({ op: 'guess', lat: truth.lat, lon: truth.lon });
    expect(end.done).toBe(true);
    expect(end.reward).toBeCloseTo(0.99, 12);
    expect((await client.splits()).map((s) => s.name)).toEqual(['train', 'eval']);
    await client.close();
  });

  it('reports environment errors with their protocol code', async () => {
    const client = make();
    await client.reset({ split: 'train', index: 0 });
    const err = await client.step({ op: 'zoom', fov_deg: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EnvError);
    expect((err as EnvError).code).toBe('VALIDATION_ERROR');
    expect((await client.step({ op: 'zoom', fov_deg: 60 })).observation.fov_deg).toBe(60);
    await client.close();
  });
});

describe('remote client', () => {
  it('says clearly when the environment cannot be reached', async () => {
    const client = new RemoteEnvClient('http://127.0.0.1:9');
    const err = await client.reset().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as Error).message).toMatch(/cannot reach the environment at ws:\/\/127\.0\.0\.1:9\/ws/);
    await expect(client.splits()).rejects.toThrow(/cannot reach the environment/);
  });

  it('a dropped connection fails the episode in flight, and the next reset opens a new session', async () => {
    const server = await startServer(live.env, { port: 0 });
    const client = new RemoteEnvClient(server.url, { timeoutMs: 20_000 });
    await client.reset({ split: 'train', index: 0 });
    const inFlight = client.step({ op: 'look', heading_deg: 100 });
    await server.close();
    const err = await inFlight.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as Error).message).toMatch(/lost: .*the episode in flight failed/);
    await expect(client.step({ op: 'pan', delta_deg: 1 })).rejects.toThrow(/the episode in flight failed/);

    const again = await startServer(live.env, { port: server.port });
    try {
      const reset = await client.reset({ split: 'train', index: 0 });
      expect(reset.done).toBe(false);
      expect((await client.step({ op: 'pan', delta_deg: 1 })).done).toBe(false);
    } finally {
      await client.close();
      await again.close();
    }
  });

  it('times out a request that gets no answer', async () => {
    const { WebSocketServer } = await import('ws');
    const silent = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((r) => silent.once('listening', r));
    const port = (silent.address() as { port: number }).port;
    const client = new RemoteEnvClient(`http://127.0.0.1:${port}`, { timeoutMs: 300 });
    await expect(client.reset()).rejects.toThrow(/no answer within 300 ms/);
    await client.close();
    await new Promise((r) => silent.close(r));
  });
});

describe('geolab against geolab', () => {
  const workspace = tempWorkspaces();

  it('an agent\'s remote environment reads its task from the Task API\'s {"task": spec} body', async () => {
    const opened = await openEnvironment({ envUrl: live.server.url, split: 'eval', index: 2 }, await workspace());
    try {
      const task = live.splits.get('eval')?.[2];
      expect(opened.task).toEqual({ task_id: task?.task_id, sequence_id: task?.sequence_id ?? null });
      expect(opened.guard.truth).toBeNull();
    } finally {
      await opened.close();
    }
  });
});
