/**
 * env.sweep_rss (docs/budgets.md, docs/env.md "Memory"): the memory of a real sweep over many
 * distinct panoramas, which must follow the decoded-panorama cache's cap rather than the number of
 * episodes. `geolab eval run`, the built binary run as a user runs it, plays 900 episodes (look,
 * pin, guess; the scripted endpoint of bench/scripted-endpoint-child.ts in a process of its own)
 * over a task set of 150 tasks, each on its own 2048x1024 panorama: 1.2 GiB decoded, more than
 * twice the default cache. The process's resident memory (all its threads) is sampled from /proc
 * every 100 ms; the figures are the peak until 300 episodes were recorded (sweep.json's count) and
 * the peak over all 900. The budget: both at most the cache cap + 400 MiB.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { DEFAULT_CACHE_BYTES } from '../src/env/render/panorama.js';
import { PACKAGE_ROOT } from '../src/paths.js';
import { round, type Bench } from './harness.js';
import { makeNoisePanoramas, noisePanoramaId } from './make-noise-panoramas.js';

const MIB = 2 ** 20;
const PANORAMAS = 150; // 8 MiB each decoded: 1.2 GiB, more than twice the cache
const EPISODES = 300;
const PASSES = 6; // 900 episodes: the same figure for 3x as many
/** Peak RSS allowed beyond the cache cap: the process, its workers and the panoramas in flight. */
const OVERHEAD_MIB = 400;
const BIN = join(PACKAGE_ROOT, 'bin', 'geolab.js');

/**
 * One task per panorama, in the public task schema (docs/formats.md), spread over Spain and France:
 * far from where the scripted model pins (44, 12), so that no pin's feedback names a place near a
 * task's truth, which the leak guard would rightly stop.
 */
function taskLines(): string {
  return Array.from({ length: PANORAMAS }, (_, i) => {
    const lat = 38 + (i % 15);
    const lon = -8 + Math.floor(i / 15);
    return JSON.stringify({
      task_index: i,
      task_id: `rss-${i}`,
      country: 'France',
      sequence_id: `rssseq${String(i).padStart(16, '0')}`,
      provider: 'synthetic',
      start_frame: 0,
      frames: [{ image_id: noisePanoramaId(i), lat, lon, compass_angle: 0, captured_at: '2024-05', is_pano: true }],
      attribution: { creator_username: 'bench', creator_id: '1', licence: 'CC0-1.0', source: 'bench' },
      meta: { offline_ready: true },
    });
  }).join('\n') + '\n';
}

function rssBytes(pid: number): number {
  try {
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

function recorded(out: string): number {
  try {
    const status = JSON.parse(readFileSync(join(out, 'sweep.json'), 'utf8')) as { models: { done: number; failed: number }[] };
    return status.models.reduce((n, m) => n + m.done + m.failed, 0);
  } catch {
    return 0; // not written yet
  }
}

function firstLine(child: ChildProcess, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('exit', (code) => reject(new Error(`env.sweep_rss: ${what} exited ${code}: ${stderr.trim()}`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', resolve);
  });
}

/** The built binary with these arguments: the process, and its exit code and stderr once it ends. */
function geolab(args: string[]): { child: ChildProcess; done: Promise<{ code: number | null; stderr: string }> } {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return { child, done: new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr }))) };
}

export const envSweepBenches: Bench[] = [
  {
    name: 'env.sweep_rss',
    unit: 'episodes',
    async run() {
      if (!existsSync(join(PACKAGE_ROOT, 'dist', 'bundle', 'main.js'))) throw new Error('env.sweep_rss needs `npm run build` first');
      // Kept between runs (a first run draws them, ~10 s): the figures are about decoding, not drawing.
      const panos = join(tmpdir(), 'geolab-bench-sweep-panos');
      mkdirSync(panos, { recursive: true });
      await makeNoisePanoramas(panos, PANORAMAS);
      const scratch = mkdtempSync(join(tmpdir(), 'geolab-bench-sweep-rss-'));
      const ws = join(scratch, 'workspace');
      let endpoint: ChildProcess | undefined;
      try {
        const tasks = join(scratch, 'tasks.jsonl');
        writeFileSync(tasks, taskLines());
        const imported = await geolab(['--workspace', ws, 'tasks', 'import', tasks, '--name', 'rss', '--panos', panos]).done;
        if (imported.code !== 0) throw new Error(`env.sweep_rss: tasks import exited ${imported.code}: ${imported.stderr}`);
        endpoint = spawn(process.execPath, [...process.execArgv, join(import.meta.dirname, 'scripted-endpoint-child.ts')], { stdio: ['ignore', 'pipe', 'pipe'] });
        const modelUrl = (await firstLine(endpoint, 'the scripted endpoint')).trim();

        const out = join(scratch, 'sweep');
        const started = performance.now();
        const sweep = geolab(['--workspace', ws, 'eval', 'run', '--model', 'scripted', '--base-url', modelUrl, '--split', 'rss', '--limit', String(PANORAMAS), '--passes', String(PASSES), '--out', out]);
        const pid = sweep.child.pid!;
        let peak = 0;
        let peakAtCheckpoint: number | null = null;
        let finished = false;
        void sweep.done.then(() => (finished = true));
        while (!finished) {
          peak = Math.max(peak, rssBytes(pid));
          if (peakAtCheckpoint === null && recorded(out) >= EPISODES) peakAtCheckpoint = peak;
          await new Promise((r) => setTimeout(r, 100));
        }
        const seconds = (performance.now() - started) / 1000;
        const result = await sweep.done;
        const episodes = recorded(out);
        if (result.code !== 0 || episodes !== PANORAMAS * PASSES) throw new Error(`env.sweep_rss: eval run exited ${result.code} with ${episodes} of ${PANORAMAS * PASSES} recorded: ${result.stderr.split('\n').filter((l) => l.includes('failed')).slice(0, 5).join('\n')}`);
        const capMiB = DEFAULT_CACHE_BYTES / MIB;
        const budget = capMiB + OVERHEAD_MIB;
        const atCheckpoint = (peakAtCheckpoint ?? peak) / MIB;
        return {
          median_ms: round((seconds * 1000) / episodes),
          per_s: round(episodes / seconds, 1),
          peak_rss_mib: round(atCheckpoint),
          peak_rss_3x_mib: round(peak / MIB),
          cache_cap_mib: capMiB,
          budget_mib: budget,
          within_budget: atCheckpoint <= budget && peak / MIB <= budget ? 1 : 0,
        };
      } finally {
        endpoint?.kill('SIGTERM');
        rmSync(scratch, { recursive: true, force: true });
      }
    },
  },
];
