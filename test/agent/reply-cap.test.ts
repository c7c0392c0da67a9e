/**
 * A model reply is never read past its cap (docs/reliability.md): the real binary against a real
 * loopback endpoint that streams 200 MB replies, generated as they are sent. Each such reply is a
 * provider error on its turn ("reply larger than 16 MiB"), the episode goes on to its guess and is
 * recorded, and geolab's resident memory (sampled from /proc) stays far under what reading the
 * replies whole would take.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseEpisodeRecord, type CompletedEpisode } from '../../src/core/episode.js';
import { geolab, spawnGeolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';

const HOME = tempDir('geolab-reply-cap-');
const MB = 1_000_000;
const MIB = 2 ** 20;
let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/**
 * An OpenAI-compatible endpoint: its first `huge` chat replies are `hugeBytes` of JSON sent in 1 MB
 * pieces as the client takes them (a string that never ends, as a runaway model's), the next a guess.
 */
async function endpoint(huge: number, hugeBytes: number): Promise<{ baseUrl: string; sent: () => number[] }> {
  let chats = 0;
  const sent: number[] = [];
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/v1/models') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: [{ id: 'scripted', object: 'model' }] }));
        return;
      }
      const n = chats++;
      res.writeHead(200, { 'content-type': 'application/json' });
      if (n >= huge) {
        const call = { id: 'c1', type: 'function', function: { name: 'guess', arguments: JSON.stringify({ lat: 45, lon: 9 }) } };
        res.end(JSON.stringify({ id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [call] }, finish_reason: 'tool_calls' }] }));
        return;
      }
      const piece = 'x'.repeat(MB);
      let written = 0;
      sent[n] = 0;
      const more = (): void => {
        if (written === 0) res.write('{"id":"x","choices":[{"message":{"role":"assistant","content":"');
        while (written < hugeBytes) {
          written += piece.length;
          sent[n] = written;
          if (!res.write(piece)) return void res.once('drain', more);
        }
        res.end('"}}]}');
      };
      res.on('error', () => undefined);
      more();
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, sent: () => sent };
}

function rssBytes(pid: number): number {
  try {
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0; // ended between two samples
  }
}

describe('a model reply past the cap', () => {
  it('two 200 MB replies: provider errors on their turns, the episode recorded, peak memory far under 800 MB', async () => {
    const model = await endpoint(2, 200 * MB);
    const run = spawnGeolab(['agent', '--headless', '--base-url', model.baseUrl, '--model', 'scripted', '--split', 'eval', '--task', '1', '--max-turns', '4'], { home: HOME, timeoutMs: 120_000 });
    let peak = 0;
    while (run.child.exitCode === null) {
      peak = Math.max(peak, rssBytes(run.child.pid!));
      await new Promise((r) => setTimeout(r, 20));
    }
    const result = await run.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toMatch(/unexpected error|SqliteError/);
    expect(peak / MIB).toBeLessThan(800);
    // The client stopped reading each one soon past the cap: the endpoint never got to send it all.
    for (const bytes of model.sent()) expect(bytes).toBeLessThan(100 * MB);

    const runDir = /recorded in (\S+)/.exec(result.stderr)?.[1];
    const parsed = parseEpisodeRecord(JSON.parse(readFileSync(join(runDir!, 'episodes.jsonl'), 'utf8').trim()));
    if (!parsed.ok) throw new Error(parsed.error);
    const record = parsed.record as CompletedEpisode;
    const errors = record.turns.filter((t) => t.status === 'provider_error');
    expect(errors).toHaveLength(2);
    for (const t of errors) expect(JSON.stringify(t)).toContain('reply larger than 16 MiB, not read further');
    expect(record.outcome.guess).toEqual([45, 9]);
    // Nothing near the reply's size was written anywhere.
    expect(readFileSync(join(runDir!, 'episodes.jsonl')).length).toBeLessThan(1 * MIB);
  }, 150_000);

  it('--max-reply-mb sets the cap, and a bad value is a usage error', async () => {
    const model = await endpoint(1, 5 * MB);
    const capped = await spawnGeolab(['agent', '--headless', '--json', '--base-url', model.baseUrl, '--model', 'scripted', '--split', 'eval', '--task', '1', '--max-turns', '3', '--max-reply-mb', '2'], { home: HOME }).done;
    expect(capped.code, capped.stderr).toBe(0);
    expect(capped.stdout).toContain('reply larger than 2 MiB, not read further');
    const bad = geolab(['agent', '--headless', '--base-url', model.baseUrl, '--model', 'scripted', '--max-reply-mb', '0'], { home: HOME });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--max-reply-mb must be MiB above 0 and at most 1024, got 0');
  }, 120_000);
});
