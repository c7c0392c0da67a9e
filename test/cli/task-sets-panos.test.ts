/**
 * A user's own tasks and panoramas (issue 8 §1): task sets are playable by name with their own
 * panorama cache, a missing panorama is named before an episode starts, checksums are verified, and
 * a cache is filled from a loopback server that answers like Mapillary's Graph API.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { geolab } from '../helpers/cli.js';
import { makeTask, tempDir, writeJsonl } from '../helpers/fixtures.js';
import { TmuxPane } from '../helpers/tmux.js';

const TOKEN = 'MLY|test-token-4f9c2a71b8';
const BIN = join(import.meta.dirname, '..', '..', 'bin', 'geolab.js');

/** The binary without blocking this process, whose loopback server must answer it meanwhile. */
function geolabAsync(args: string[], options: { home: string; env: Record<string, string> }): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, NO_COLOR: '1', GEOLAB_HOME: options.home, ...options.env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** A real equirectangular 2:1 JPEG, coloured by `seed`. */
async function panoramaJpeg(seed: number): Promise<Buffer> {
  return sharp({ create: { width: 256, height: 128, channels: 3, background: { r: (seed * 53) % 256, g: 120, b: 200 } } })
    .jpeg()
    .toBuffer();
}

async function fixtureWithPanos(): Promise<{ file: string; panos: string; jpegs: Map<string, Buffer> }> {
  const dir = tempDir();
  const panos = join(dir, 'panos');
  mkdirSync(panos);
  const jpegs = new Map<string, Buffer>();
  const tasks = [makeTask(0), makeTask(1)];
  for (const [i, id] of ['img0a', 'img0b', 'img1a', 'img1b'].entries()) {
    const jpeg = await panoramaJpeg(i);
    jpegs.set(id, jpeg);
    writeFileSync(join(panos, `${id}.jpg`), jpeg);
  }
  return { file: writeJsonl(tasks, dir), panos, jpegs };
}

describe('a task set with its own panorama folder', () => {
  it('is imported with --panos, played by name and recorded', async () => {
    const home = tempDir();
    const { file, panos } = await fixtureWithPanos();
    const imported = geolab(['tasks', 'import', file, '--name', 'fixture', '--panos', panos, '--json'], { home });
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ status: 'imported', name: 'fixture', tasks: 2, panos });

    const played = geolab(['agent', '--policy', 'random-land', '--split', 'fixture', '--task', '1', '--json'], { home });
    expect(played.code, played.stderr).toBe(0);
    const record = JSON.parse(played.stdout) as { task: { split: string; index: number; task_id: string }; outcome: { distance_km: number | null } };
    expect(record.task).toMatchObject({ split: 'fixture', index: 1, task_id: 'fx-00001' });
    expect(typeof record.outcome.distance_km).toBe('number');
    const list = JSON.parse(geolab(['episodes', 'list', '--split', 'fixture', '--json'], { home }).stdout) as unknown[];
    expect(list).toHaveLength(1);
  });

  it('without a cache for it, refuses to start in one line naming task, frame, image id, path and the fix (exit 2)', () => {
    const home = tempDir();
    const file = writeJsonl([makeTask(0)]);
    expect(geolab(['tasks', 'import', file, '--name', 'fixture'], { home }).code).toBe(0);
    const r = geolab(['agent', '--policy', 'random-land', '--split', 'fixture', '--task', '0', '--headless'], { home });
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('split fixture, task 0 (fx-00000), frame 0');
    expect(lines[0]).toContain(`image img0a`);
    expect(lines[0]).toContain(join(home, 'panos', 'img0a.jpg'));
    expect(lines[0]).toContain('geolab panos fetch');
    expect(lines[0]).not.toContain('could not draw');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('takes the workspace `config set panos` when the set has none, and the command flag over both', async () => {
    const home = tempDir();
    const { file, panos } = await fixtureWithPanos();
    expect(geolab(['tasks', 'import', file, '--name', 'fixture'], { home }).code).toBe(0);
    const set = geolab(['config', 'set', 'panos', panos], { home });
    expect(set.code, set.stderr).toBe(0);
    expect(geolab(['config', 'get', 'panos'], { home }).stdout.trim()).toBe(panos);
    expect(geolab(['config', 'list'], { home }).stdout).toContain(`panos = ${panos}`);
    const played = geolab(['agent', '--policy', 'random-land', '--split', 'fixture', '--task', '0', '--headless'], { home });
    expect(played.code, played.stderr).toBe(0);

    const empty = tempDir();
    const flagged = geolab(['agent', '--policy', 'random-land', '--split', 'fixture', '--task', '0', '--headless', '--panos', empty], { home });
    expect(flagged.code).toBe(2);
    expect(flagged.stderr).toContain(join(empty, 'img0a.jpg'));
    expect(geolab(['config', 'set', 'nope', 'x'], { home }).code).toBe(2);
  });

  it('is served by `env serve` with no --tasks; a missing panorama is named at reset and logged, and moving onto one leaks no id', async () => {
    const home = tempDir();
    const { file, panos } = await fixtureWithPanos();
    rmSync(join(panos, 'img0b.jpg'));
    rmSync(join(panos, 'img1a.jpg'));
    expect(geolab(['tasks', 'import', file, '--name', 'fixture', '--panos', panos], { home }).code).toBe(0);
    const child = spawn(process.execPath, [BIN, 'env', 'serve', '--port', '0', '--json', '--workers', '0'], {
      env: { ...process.env, GEOLAB_HOME: home },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const logged = async (text: string) => {
      for (let waited = 0; !stderr.includes(text) && waited < 5000; waited += 20) await new Promise((r) => setTimeout(r, 20));
      expect(stderr).toContain(text);
    };
    try {
      const info = await new Promise<{ url: string; splits: Record<string, number> }>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!) as { url: string; splits: Record<string, number> });
        });
        child.on('exit', (code) => reject(new Error(`env serve exited ${code}: ${stderr}`)));
      });
      expect(info.splits).toMatchObject({ train: expect.any(Number), eval: expect.any(Number), fixture: 2 });
      const splits = (await (await fetch(`${info.url}/geoguesser_env/splits`)).json()) as { name: string }[];
      expect(splits.map((s) => s.name)).toContain('fixture');

      const post = async (path: string, body: unknown) => {
        const r = await fetch(`${info.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        return { status: r.status, body: (await r.json()) as Record<string, unknown> };
      };
      const refused = await post('/sessions', { split: 'fixture', index: 1 });
      expect(refused.status).toBeGreaterThanOrEqual(400);
      const message = String(refused.body.message);
      expect(message).toContain('split fixture, task 1 (fx-00001), frame 0');
      expect(message).toContain(`image img1a`);
      expect(message).toContain(join(panos, 'img1a.jpg'));
      expect(message).not.toContain('could not draw');
      // The log line travels through the child's stderr pipe, which may arrive after the answer.
      await logged(join(panos, 'img1a.jpg'));

      const started = await post('/sessions', { split: 'fixture', index: 0 });
      expect(started.status, JSON.stringify(started.body)).toBe(200);
      const moved = await post(`/sessions/${String(started.body.session_id)}/step`, { action: { op: 'move', meters: 15 } });
      expect(moved.status).toBeGreaterThanOrEqual(400);
      expect(String(moved.body.message)).toContain('frame 1');
      expect(String(moved.body.message)).not.toContain('img0b');
      await logged(join(panos, 'img0b.jpg'));
    } finally {
      child.kill('SIGTERM');
    }
  });
});

describe('geolab play on a task set', () => {
  it('plays a task of an imported set on its own panoramas in a real terminal and records the episode', async () => {
    const home = tempDir();
    const { file, panos } = await fixtureWithPanos();
    expect(geolab(['tasks', 'import', file, '--name', 'fixture', '--panos', panos], { home }).code).toBe(0);
    const pane = new TmuxPane([process.execPath, BIN, 'play', '--split', 'fixture', '--task', '0'], { GEOLAB_HOME: home, TERM: 'xterm-256color' });
    try {
      await pane.waitFor('Your move: turn 1.');
      pane.send(['g']);
      await pane.waitFor('enter guess');
      // Keys sent in the instant before the prompt's input handler mounts are not seen: a person is slower.
      await new Promise((r) => setTimeout(r, 300));
      pane.send(['45.001, 7.001'], true);
      await pane.waitFor('45.001, 7.001');
      pane.send(['Enter']);
      await pane.waitFor('guess 45.0010, 7.0010');
    } finally {
      pane.kill();
    }
    const list = JSON.parse(geolab(['episodes', 'list', '--split', 'fixture', '--json'], { home }).stdout) as { distance_km: number }[];
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ split: 'fixture', task_index: 0, model: 'human' });
    expect(list[0]!.distance_km).toBeLessThan(1);
  });

  it('in a terminal, names a missing start panorama in one line and exits 2 before any TUI', async () => {
    const home = tempDir();
    const file = writeJsonl([makeTask(0)]);
    expect(geolab(['tasks', 'import', file, '--name', 'fixture'], { home }).code).toBe(0);
    // `script` gives the binary a real terminal on stdin and stdout, so it gets past the TTY check.
    const r = spawnSync('script', ['-qec', `${process.execPath} ${BIN} play --split fixture --task 0`, '/dev/null'], {
      encoding: 'utf8',
      env: { ...process.env, GEOLAB_HOME: home, TERM: 'xterm-256color' },
      timeout: 60_000,
    });
    expect(r.status).toBe(2);
    const lines = r.stdout.split(/\r?\n/).filter((l) => l.trim());
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('geolab: cannot start split fixture, task 0 (fx-00000), frame 0');
    expect(lines[0]).toContain(join(home, 'panos', 'img0a.jpg'));
    // No TUI was drawn: no escape sequences at all.
    expect(r.stdout).not.toContain('\u001b[');
  });
});

describe('geolab tasks validate --panos', () => {
  it('verifies files against meta.sha256, naming file:line, image id, expected and actual', async () => {
    const { panos, jpegs } = await fixtureWithPanos();
    const good = createHash('sha256').update(jpegs.get('img1a')!).digest('hex');
    const wrong = 'ab'.repeat(32);
    const file = writeJsonl([makeTask(0, { meta: { sha256: { img0a: wrong } } }), makeTask(1, { meta: { sha256: { img1a: good } } })]);
    const r = geolab(['tasks', 'validate', file, '--panos', panos]);
    expect(r.code).toBe(1);
    const actual = createHash('sha256').update(jpegs.get('img0a')!).digest('hex');
    expect(r.stdout).toContain(`${file}:1: error: frames.0.image_id: image img0a: ${join(panos, 'img0a.jpg')} has sha256 ${actual}, meta.sha256 expects ${wrong}`);
    expect(r.stdout).toContain('1 error(s)');
  });
});

describe('panoramas from a Graph-API-like server', () => {
  let server: Server;
  let base: string;
  const jpegs = new Map<string, Buffer>();
  const seenAuth: string[] = [];
  const seenUrls: string[] = [];

  beforeAll(async () => {
    for (const [i, id] of ['img0a', 'img0b', 'img1a', 'img1b'].entries()) jpegs.set(id, await panoramaJpeg(i + 10));
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      seenUrls.push(req.url ?? '');
      const cdn = /^\/cdn\/([\w-]+)$/.exec(url.pathname);
      if (cdn) {
        const bytes = jpegs.get(cdn[1]!);
        res.writeHead(bytes ? 200 : 404, { 'content-type': 'image/jpeg' }).end(bytes);
        return;
      }
      seenAuth.push(req.headers.authorization ?? '');
      if (req.headers.authorization !== `OAuth ${TOKEN}`) return void res.writeHead(401).end('{}');
      const id = url.pathname.slice(1);
      const field = url.searchParams.get('fields') ?? '';
      if (!jpegs.has(id) || field !== 'thumb_2048_url') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id, [field]: `${base}/cdn/${id}?sig=signed` }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('`panos fetch` fills the cache with progress, resumes, and lists failures (exit 1) without showing the token', async () => {
    const home = tempDir();
    const panos = join(tempDir(), 'cache');
    const env = { MAPILLARY_ACCESS_TOKEN: TOKEN, GEOLAB_MAPILLARY_API: base };
    const sums = { img0a: createHash('sha256').update(jpegs.get('img0a')!).digest('hex') };
    const file = writeJsonl([makeTask(0, { meta: { sha256: sums } }), makeTask(1), makeTask(2)]);
    const first = await geolabAsync(['panos', 'fetch', file, '--panos', panos, '--concurrency', '3'], { home, env });
    expect(first.code).toBe(1);
    for (const id of jpegs.keys()) expect(readFileSync(join(panos, `${id}.jpg`)).equals(jpegs.get(id)!)).toBe(true);
    expect(first.stderr).toMatch(/fetched 6\/6 \(\d+(\.\d)?\/s, ETA \d+ s\)/);
    expect(first.stdout).toContain('failed: fx-00002: image img2a: the Graph API gave no thumb_2048_url');
    expect(first.stdout).toContain('4 fetched, 0 already present, 2 failed');
    expect(first.stdout + first.stderr).not.toContain('test-token');
    expect(seenAuth.every((a) => a === `OAuth ${TOKEN}`)).toBe(true);
    expect(seenUrls.some((u) => u.includes('test-token'))).toBe(false);

    const again = await geolabAsync(['panos', 'fetch', file, '--panos', panos, '--json'], { home, env });
    expect(JSON.parse(again.stdout)).toMatchObject({ present: 4, fetched: 0, failed: [{ image_id: 'img2a' }, { image_id: 'img2b' }] });

    const noToken = geolab(['panos', 'fetch', file, '--panos', panos], { home, env: { MAPILLARY_ACCESS_TOKEN: '', MAPILLARY_API_KEY: '' } });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('MAPILLARY_ACCESS_TOKEN');
  });

  it('refuses a download whose bytes disagree with meta.sha256, writing nothing', async () => {
    const panos = join(tempDir(), 'cache');
    const file = writeJsonl([makeTask(0, { meta: { sha256: { img0a: 'cd'.repeat(32) } } })]);
    const r = await geolabAsync(['panos', 'fetch', file, '--panos', panos, '--json'], { home: tempDir(), env: { MAPILLARY_ACCESS_TOKEN: TOKEN, GEOLAB_MAPILLARY_API: base } });
    expect(r.code).toBe(1);
    expect(JSON.stringify(JSON.parse(r.stdout))).toContain(`meta.sha256 expects ${'cd'.repeat(32)}`);
    expect(existsSync(join(panos, 'img0a.jpg'))).toBe(false);
  });

  it('with --fetch, an episode on a set with an empty cache fetches what it needs and plays', async () => {
    const home = tempDir();
    const panos = join(tempDir(), 'cache');
    const file = writeJsonl([makeTask(0), makeTask(1)]);
    expect(geolab(['tasks', 'import', file, '--name', 'fixture', '--panos', panos], { home }).code).toBe(0);
    const env = { MAPILLARY_API_KEY: TOKEN, GEOLAB_MAPILLARY_API: base };
    const r = await geolabAsync(['agent', '--policy', 'random-land', '--split', 'fixture', '--task', '0', '--headless', '--fetch'], { home, env });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(panos, 'img0a.jpg')).equals(jpegs.get('img0a')!)).toBe(true);
    expect(r.stdout + r.stderr).not.toContain('test-token');
  });
});
