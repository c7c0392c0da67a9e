/**
 * Memory per connection (docs/reliability.md): a WebSocket client that floods resets and never reads a reply
 * must not grow the server without bound (before the unsent-reply bound, 12,000 unread resets took
 * a server from about 300 to 930 MB). Reports the server's RSS growth until it closes the client.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { MAX_UNSENT_BYTES } from '../src/env/server.js';
import { round, type Bench } from './harness.js';

const RESETS = 12_000;
const MB = 1024 * 1024;

function ask<T>(child: ChildProcess, message: string): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', (answer) => resolve(answer as T));
    child.send(message);
  });
}

export const envServerBenches: Bench[] = [
  {
    name: 'env.unread_flood',
    unit: 'floods',
    async run() {
      const panos = mkdtempSync(join(tmpdir(), 'geolab-bench-panos-'));
      // The child runs the TypeScript sources as this process does (tsx's loader is in execArgv).
      const child = spawn(process.execPath, [...process.execArgv, join(import.meta.dirname, 'env-server-child.ts'), panos], {
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      });
      try {
        const { port } = await new Promise<{ port: number }>((resolve) => child.once('message', (m) => resolve(m as { port: number })));
        const url = `ws://127.0.0.1:${port}/ws`;
        const reset = JSON.stringify({ type: 'reset', data: { split: 'train', index: 0 } });

        // Warm: the panorama drawn and decoded, the renderer loaded, before the baseline.
        const warm = new WebSocket(url);
        await new Promise((resolve) => warm.once('open', resolve));
        warm.send(reset);
        await new Promise((resolve) => warm.once('message', resolve));
        warm.close();
        const before = await ask<{ rss: number; sessions: number }>(child, 'rss');

        const flooder = new WebSocket(url);
        await new Promise((resolve) => flooder.once('open', resolve));
        flooder.pause();
        const start = performance.now();
        for (let i = 0; i < RESETS; i++) flooder.send(reset);
        let after = await ask<{ rss: number; sessions: number }>(child, 'rss');
        let peak = after.rss;
        while (after.sessions > 0) {
          await new Promise((r) => setTimeout(r, 50));
          after = await ask<{ rss: number; sessions: number }>(child, 'rss');
          peak = Math.max(peak, after.rss);
        }
        const ms = performance.now() - start;
        flooder.terminate();
        return {
          median_ms: round(ms),
          per_s: round(1000 / ms, 3),
          rss_before_mb: round(before.rss / MB, 1),
          rss_peak_mb: round(peak / MB, 1),
          rss_growth_mb: round((peak - before.rss) / MB, 1),
          bound_mb: MAX_UNSENT_BYTES / MB,
        };
      } finally {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.send('exit');
        await exited;
      }
    },
  },
];
