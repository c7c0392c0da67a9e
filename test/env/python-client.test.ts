import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLive, type Live } from './helpers/live.js';

let live: Live;
beforeAll(async () => {
  live = await startLive();
});
afterAll(() => live.close());

describe('a stdlib-only Python client', () => {
  it('reads the Task API and metadata as the harness does, and plays an episode over HTTP sessions in a real python3 process', async () => {
    const truth = live.truth('train', 4);
    const script = join(import.meta.dirname, 'fixtures', 'play_http.py');
    // Asynchronous, since a synchronous child would block this process's server.
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn('python3', [script, live.server.url, 'train', '4', String(truth.lat), String(truth.lon)]);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`python3 exited ${code}: ${stderr}`))));
    });
    const result = JSON.parse(out) as Record<string, unknown> & { codes: number[]; reward: number };
    // look and pin spend steps; the zoom with fov 5 is a validation error (HTTP 400) that costs nothing.
    expect(result.codes).toEqual([23, 22, 400]);
    expect(result.done).toBe(true);
    expect(result.distance_km).toBe(0);
    expect(result.reward).toBeCloseTo(1 - 0.03, 12);
    // It read the Task API bodies and the metadata inside the observation, as the harness does.
    const n = live.splits.get('train')?.length as number;
    expect(result).toMatchObject({ num_tasks: n, task_index: 4, last_two: [n - 2, n - 1], verdict: 'Perfect' });
    expect(result.bookkeeping).toEqual({ split: 'train', backend: 'panorama', episode_mode: 'agentic', street_detail: 'off' });
  });
});
