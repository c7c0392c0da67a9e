/**
 * eval.cpu_per_episode (docs/budgets.md): the CPU one evaluation episode costs geolab, against a
 * plain client doing the same work in the same run. Both sides play the demo eval split with the same
 * scripted model (look, pin, guess; bench/scripted-endpoint-child.ts, a zero-latency
 * OpenAI-compatible server in a process of its own, so its CPU counts against neither side) and
 * send the model images of the same size.
 *
 * - geolab: the real binary, cold, as a user runs it: `geolab eval run` with its embedded
 *   environment, which renders the views in-process. Its CPU is the user plus system time of the
 *   whole process (worker threads included) from getrusage of a python3 parent.
 * - the baseline: bench/eval_cpu_client.py, standard-library Python that does what the public eval
 *   harness does (docs/protocol.md: the WebSocket protocol and Task API; the chat request with the
 *   conversation, the images as data URLs and the tools every turn), against `geolab env serve`
 *   rendering views at the size the model gets. Its CPU is the client's (getrusage, as above) plus
 *   the server's over the client's run (/proc/PID/stat before and after; the server's start-up is
 *   not counted, as a long-running server's is not).
 *
 * Three rounds, a fresh output folder for geolab and a fresh server each, so nothing is resumed or
 * cached across rounds; the figures are medians. The budget is on the cold figure, start-up and all;
 * besides it, each side's cost is split into what one episode costs cold (fixed: geolab's one-episode
 * sweep; the client's one episode on a fresh server of its own) and what each further episode adds
 * (marginal), to tell a slow start from slow episodes: `marginal_ratio` compares the two sides'
 * per-episode work. Needs `npm run build` and Linux (/proc).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { PACKAGE_ROOT } from '../src/paths.js';
import { median, round, type Bench } from './harness.js';

const BIN = join(PACKAGE_ROOT, 'bin', 'geolab.js');
const CLIENT = join(import.meta.dirname, 'eval_cpu_client.py');
const SPLIT = 'eval';
/** The demo eval split has 15 tasks: 12 tasks x 4 passes, 48 episodes of three turns a round. */
const TASKS = 12;
const PASSES = 4;
const EPISODES = TASKS * PASSES;
const ROUNDS = 3;
/** geolab's default `--image-size`: the server renders views this size, which the client sends as they come. */
const IMAGE_SIZE = 448;
/** Runs a command and prints the user + system seconds of it and everything it started (threads included). */
const RUSAGE = [
  '-c',
  'import resource, subprocess, sys\n' +
    'code = subprocess.run(sys.argv[1:]).returncode\n' +
    'r = resource.getrusage(resource.RUSAGE_CHILDREN)\n' +
    'print("cpu_s", r.ru_utime + r.ru_stime, code)',
];
const CHILD_TIMEOUT_MS = 180_000;
/** eval.concurrency: three replicas answering in 100 ms each, as a fast served model; per-replica limits tried beside the default. */
const CONCURRENCY_LATENCY_MS = 100;
const CONCURRENCY_REPLICAS = 3;
const CONCURRENCY_FIXED = [1, 2, 4, 8];

interface Measured {
  cpuS: number;
  wallS: number;
  stdout: string;
}

/** `cmd` under the rusage wrapper; throws when it fails, with its stderr. */
function underRusage(cmd: string[], what: string): Measured {
  const start = performance.now();
  let out: string;
  try {
    out = execFileSync('python3', [...RUSAGE, ...cmd], { encoding: 'utf8', timeout: CHILD_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 2 ** 20 });
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`eval.cpu_per_episode: ${what} failed: ${(e.stderr || e.message).trim().split('\n').slice(-5).join('\n')}`, { cause: error });
  }
  const wallS = (performance.now() - start) / 1000;
  const lines = out.trimEnd().split('\n');
  const [, cpu, code] = /^cpu_s (\S+) (-?\d+)$/.exec(lines.at(-1) ?? '') ?? [];
  if (cpu === undefined) throw new Error(`eval.cpu_per_episode: ${what}: no CPU figure in ${JSON.stringify(out.slice(-300))}`);
  if (code !== '0') throw new Error(`eval.cpu_per_episode: ${what} exited ${code}: ${lines.slice(-6, -1).join('\n')}`);
  return { cpuS: Number(cpu), wallS, stdout: lines.slice(0, -1).join('\n') };
}

/** A child's first stdout line (its address), or an error with its stderr once it exits. */
function firstLine(child: ChildProcess, what: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('exit', (code) => reject(new Error(`eval.cpu_per_episode: ${what} exited ${code}: ${stderr.trim()}`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', resolve);
  });
}

const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** User + system seconds of a live process and all its threads, from /proc/PID/stat (fields 14, 15). */
function processCpuS(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis are plain.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5000).unref();
  });
}

/** The complete records in an output tree's episodes.jsonl files. */
function recordsIn(dir: string): { outcome?: unknown; error?: string }[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => f.endsWith('episodes.jsonl'))
    .flatMap((f) =>
      readFileSync(join(dir, f), 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l) as { outcome?: unknown; error?: string }),
    );
}

interface Round {
  geolabS: number;
  /** A one-episode sweep, cold: what every sweep pays before its episodes (start-up, first map, guard's tables). */
  geolabOneS: number;
  geolabWallS: number;
  clientS: number;
  serverS: number;
  /** The server's CPU from its spawn until it listens: the start-up the baseline leaves out. */
  serverStartS: number;
  /** The baseline over one episode, on a fresh server of its own: its fixed cost, as geolabOneS is geolab's. */
  baselineOneS: number;
}

async function round_(ws: string, modelUrl: string, scratch: string, n: number): Promise<Round> {
  // geolab, cold, into a new folder: every episode is played, none resumed.
  const out = join(scratch, `geolab-${n}`);
  const geolab = underRusage(
    [process.execPath, BIN, '--workspace', ws, 'eval', 'run', '--model', 'scripted', '--base-url', modelUrl, '--split', SPLIT, '--limit', String(TASKS), '--passes', String(PASSES), '--image-size', String(IMAGE_SIZE), '--out', out],
    'geolab eval run',
  );
  const records = recordsIn(out);
  const played = records.filter((r) => r.outcome && !r.error).length;
  if (played !== EPISODES) throw new Error(`eval.cpu_per_episode: geolab eval run recorded ${played} played episodes of ${EPISODES} (${records.length} records) in ${out}`);
  const one = underRusage(
    [process.execPath, BIN, '--workspace', ws, 'eval', 'run', '--model', 'scripted', '--base-url', modelUrl, '--split', SPLIT, '--limit', '1', '--passes', '1', '--image-size', String(IMAGE_SIZE), '--out', join(scratch, `geolab-one-${n}`)],
    'geolab eval run (one episode)',
  );

  const baseline = await baselineRun(ws, modelUrl, scratch, `${n}`, TASKS, PASSES);
  const baselineOne = await baselineRun(ws, modelUrl, scratch, `one-${n}`, 1, 1);
  return {
    geolabS: geolab.cpuS,
    geolabOneS: one.cpuS,
    geolabWallS: geolab.wallS,
    clientS: baseline.clientS,
    serverS: baseline.serverS,
    serverStartS: baseline.serverStartS,
    baselineOneS: baselineOne.clientS + baselineOne.serverS,
  };
}

/**
 * The baseline over `tasks` x `passes` episodes: a fresh server (its start-up left out, and
 * reported apart), the client's CPU plus the server's over the client's run.
 */
async function baselineRun(ws: string, modelUrl: string, scratch: string, name: string, tasks: number, passes: number): Promise<{ clientS: number; serverS: number; serverStartS: number }> {
  const server = spawn(process.execPath, [BIN, '--workspace', ws, 'env', 'serve', '--host', '127.0.0.1', '--port', '0', '--json', '--view-size', String(IMAGE_SIZE)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const envUrl = String((JSON.parse(await firstLine(server, 'geolab env serve')) as { url: string }).url);
    const before = processCpuS(server.pid!);
    const file = join(scratch, `client-${name}.jsonl`);
    const client = underRusage(['python3', CLIENT, envUrl, modelUrl, SPLIT, String(tasks), String(passes), file], 'the Python client');
    const serverS = processCpuS(server.pid!) - before;
    const summary = JSON.parse(client.stdout.trim().split('\n').at(-1) ?? '{}') as { episodes?: number };
    const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).length;
    const episodes = tasks * passes;
    if (summary.episodes !== episodes || lines !== episodes) throw new Error(`eval.cpu_per_episode: the Python client played ${summary.episodes} episodes (${lines} records) of ${episodes}`);
    return { clientS: client.cpuS, serverS, serverStartS: before };
  } finally {
    await stop(server);
  }
}

export const evalCpuBenches: Bench[] = [
  {
    name: 'eval.cpu_per_episode',
    unit: 'episodes',
    async run() {
      if (!existsSync(join(PACKAGE_ROOT, 'dist', 'bundle', 'main.js'))) throw new Error('eval.cpu_per_episode needs `npm run build` first');
      const scratch = mkdtempSync(join(tmpdir(), 'geolab-bench-cpu-'));
      const ws = join(scratch, 'workspace');
      let endpoint: ChildProcess | undefined;
      try {
        // The model, in a process of its own; it runs the TypeScript sources as this process does (tsx's loader is in execArgv).
        endpoint = spawn(process.execPath, [...process.execArgv, join(import.meta.dirname, 'scripted-endpoint-child.ts')], { stdio: ['ignore', 'pipe', 'pipe'] });
        const modelUrl = (await firstLine(endpoint, 'the scripted endpoint')).trim();
        // One unmeasured pass makes the workspace and draws the demo panoramas of every task, which neither side should pay for.
        underRusage(
          [process.execPath, BIN, '--workspace', ws, 'eval', 'run', '--model', 'scripted', '--base-url', modelUrl, '--split', SPLIT, '--limit', String(TASKS), '--passes', '1', '--out', join(scratch, 'warm-up')],
          'the warm-up geolab eval run',
        );
        const rounds: Round[] = [];
        for (let n = 0; n < ROUNDS; n++) rounds.push(await round_(ws, modelUrl, scratch, n));
        const perEpisodeMs = (s: number) => (s * 1000) / EPISODES;
        const geolabMs = median(rounds.map((r) => perEpisodeMs(r.geolabS)));
        const clientMs = median(rounds.map((r) => perEpisodeMs(r.clientS)));
        const serverMs = median(rounds.map((r) => perEpisodeMs(r.serverS)));
        const baselineMs = median(rounds.map((r) => perEpisodeMs(r.clientS + r.serverS)));
        // A diagnostic, not the budget: the baseline with its server's start counted, as geolab's own start is.
        const serverStartMs = median(rounds.map((r) => r.serverStartS * 1000));
        const withStartMs = median(rounds.map((r) => perEpisodeMs(r.clientS + r.serverS + r.serverStartS)));
        // geolab's figure split: the cost of a sweep however short, and of each episode past the first.
        const fixedMs = median(rounds.map((r) => r.geolabOneS * 1000));
        const marginalMs = median(rounds.map((r) => ((r.geolabS - r.geolabOneS) * 1000) / (EPISODES - 1)));
        // The baseline split the same way: its per-episode work is what geolab's marginal compares with.
        const baselineFixedMs = median(rounds.map((r) => r.baselineOneS * 1000));
        const baselineMarginalMs = median(rounds.map((r) => ((r.clientS + r.serverS - r.baselineOneS) * 1000) / (EPISODES - 1)));
        return {
          median_ms: round(geolabMs, 2),
          per_s: round(1000 / geolabMs, 2),
          python_client_ms: round(clientMs, 2),
          env_server_ms: round(serverMs, 2),
          baseline_ms: round(baselineMs, 2),
          ratio: round(geolabMs / baselineMs, 3),
          within_budget: geolabMs <= baselineMs ? 1 : 0,
          geolab_fixed_ms: round(fixedMs, 1),
          geolab_marginal_ms: round(marginalMs, 2),
          baseline_fixed_ms: round(baselineFixedMs, 1),
          baseline_marginal_ms: round(baselineMarginalMs, 2),
          marginal_ratio: round(marginalMs / baselineMarginalMs, 3),
          server_start_ms: round(serverStartMs, 1),
          ratio_with_server_start: round(geolabMs / withStartMs, 3),
          geolab_wall_s: round(median(rounds.map((r) => r.geolabWallS)), 2),
          episodes: EPISODES,
        };
      } finally {
        await stop(endpoint);
        rmSync(scratch, { recursive: true, force: true });
      }
    },
  },
  {
    // docs/budgets.md: throughput by episodes in flight, the default (following the machine) beside fixed limits.
    name: 'eval.concurrency',
    unit: 'episodes',
    async run() {
      if (!existsSync(join(PACKAGE_ROOT, 'dist', 'bundle', 'main.js'))) throw new Error('eval.concurrency needs `npm run build` first');
      const scratch = mkdtempSync(join(tmpdir(), 'geolab-bench-concurrency-'));
      const ws = join(scratch, 'workspace');
      let endpoint: ChildProcess | undefined;
      try {
        endpoint = spawn(process.execPath, [...process.execArgv, join(import.meta.dirname, 'scripted-endpoint-child.ts'), String(CONCURRENCY_LATENCY_MS), String(CONCURRENCY_REPLICAS)], { stdio: ['ignore', 'pipe', 'pipe'] });
        const modelUrl = (await firstLine(endpoint, 'the scripted endpoint')).trim();
        const sweep = (out: string, passes: number, extra: string[] = []) =>
          underRusage(
            [process.execPath, BIN, '--workspace', ws, 'eval', 'run', '--model', 'scripted', '--base-url', modelUrl, '--split', SPLIT, '--limit', String(TASKS), '--passes', String(passes), '--image-size', String(IMAGE_SIZE), '--out', join(scratch, out), ...extra],
            `geolab eval run ${extra.join(' ')}`,
          );
        sweep('warm-up', 1);
        const figures: Record<string, number> = {};
        let best = 0;
        for (const perReplica of ['default', ...CONCURRENCY_FIXED.map(String)]) {
          const run = sweep(`c-${perReplica}`, PASSES, perReplica === 'default' ? [] : ['--concurrency', perReplica]);
          const perS = EPISODES / run.wallS;
          best = Math.max(best, perS);
          figures[perReplica === 'default' ? 'default_per_s' : `in_flight_${Number(perReplica) * CONCURRENCY_REPLICAS}_per_s`] = round(perS, 2);
          if (perReplica === 'default') figures.default_cpu_ms = round((run.cpuS * 1000) / EPISODES, 1);
        }
        return {
          median_ms: round(1000 / figures.default_per_s!, 1),
          per_s: figures.default_per_s!,
          ...figures,
          default_vs_best: round(figures.default_per_s! / best, 3),
          latency_ms: CONCURRENCY_LATENCY_MS,
          replicas: CONCURRENCY_REPLICAS,
        };
      } finally {
        await stop(endpoint);
        rmSync(scratch, { recursive: true, force: true });
      }
    },
  },
];
