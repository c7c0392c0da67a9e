/**
 * Pre-flight (docs/training.md): everything that would sink a GRPO run, checked before GPU time is spent.
 * Each check is a small function returning verdicts with the fix; the probes of the machine
 * (nvidia-smi, the trainer's python) run as child processes found on an injectable PATH, so tests
 * put fake ones first. No secret's value is ever read into a message: only "set" or "missing".
 */
import { execFile } from 'node:child_process';
import { existsSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { registerSecret } from '../core/secrets.js';
import type { Task } from '../core/tasks.js';
import { RemoteEnvClient } from '../env/client/remote.js';
import { DEFAULT_MAX_SESSIONS } from '../env/server/defaults.js';
import { panoramaFile } from '../tasks/panoramas.js';
import { derive, type TrainConfig } from './config.js';
import { formatProblems, type LocatedProblem } from './config-file.js';
import { gib, memoryBudget, QWEN35_4B } from './memory.js';
import { locateModel, readModelFacts, type ModelFacts } from './model-files.js';
import { ASSUMED_TORCH_CUDA, driverAtLeast, minDriver, torchCuda } from './driver.js';
import { TRAINER_REQUIREMENTS } from './python-path.js';
import { meetsPin, trainerPins, type Pin } from './requirements.js';
import type { CheckStatus, PreflightCheck, PreflightReport } from './types.js';

export interface PreflightOptions {
  /** Environment of the probes: its PATH finds nvidia-smi and python; secrets are looked up in it. */
  env?: NodeJS.ProcessEnv;
  /** The GPU query command (default `nvidia-smi`). */
  nvidiaSmi?: string;
  /** The trainer's interpreter (default the config's `python`). */
  python?: string;
  /** Workspace of a local environment's task sets and panorama cache (default: the usual lookup). */
  workspace?: string;
  /** Per environment request, in ms. */
  envTimeoutMs?: number;
}

/** The recipe's card: an A100 80 GB reports 81,920 MiB, an H100 80 GB 81,559 MiB. */
export const RECIPE_GPU_MIB = 80_000;
/** Python the trainer is written for. */
export const MIN_PYTHON = [3, 10] as const;
/** Qwen3.5 and the environment_factory path of GRPOTrainer need it. */
export const MIN_TRANSFORMERS = [5, 2] as const;
/** Below this, free space on the checkpoints' disk is worth a warning (traces, logs, a resumed run). */
export const DISK_WARN_BYTES = 20e9;
/** A LoRA r=16 checkpoint on q/k/v/o of a 4B model (adapter, optimizer state, RNG): about this much. */
const CHECKPOINT_BYTES_R16 = 100e6;
/** The trace JSONL and logs of a 250-step run stay well under this. */
const TRACE_BYTES = 2e9;

export async function runPreflight(config: TrainConfig, options: PreflightOptions = {}): Promise<PreflightReport> {
  const env = options.env ?? process.env;
  const python = options.python ?? config.python;
  const nvidiaSmi = options.nvidiaSmi ?? 'nvidia-smi';
  const probed = probePython(python, env);
  const groups = await Promise.all([
    configChecks(config),
    gpuChecks(config, nvidiaSmi, env),
    probed.then((found) => pythonChecks(config, python, found)),
    probed.then((found) => driverChecks(nvidiaSmi, env, found)),
    [diskCheck(config)],
    environmentChecks(config, options),
    secretChecks(config, env),
  ]);
  return report(groups.flat());
}

/** The report of a config that did not validate: one failed check per problem, at its file:line. */
export function invalidConfigReport(file: string, problems: readonly LocatedProblem[]): PreflightReport {
  const lines = formatProblems(file, problems);
  return report(lines.map((message) => ({ id: 'config.valid', status: 'fail', message, fix: 'edit the config (or write a new one with `geolab train init`)' })));
}

function report(checks: PreflightCheck[]): PreflightReport {
  return { checks, ok: checks.every((c) => c.status !== 'fail') };
}

const check = (id: string, status: CheckStatus, message: string, fix?: string): PreflightCheck => (fix && status !== 'pass' ? { id, status, message, fix } : { id, status, message });

function configChecks(config: TrainConfig): PreflightCheck[] {
  const d = derive(config);
  const out = [
    check(
      'config.valid',
      'pass',
      `${config.name}: ${config.model}, ${config.grpo.max_steps} steps of ${d.tasksPerStep} task${d.tasksPerStep === 1 ? '' : 's'} x ${config.grpo.num_generations} completions, ${d.checkpoints} checkpoints, ${config.gpus} GPU${config.gpus === 1 ? '' : 's'}`,
    ),
  ];
  if (config.grpo.max_steps > 300) {
    out.push(check('config.max_steps', 'warn', `max_steps ${config.grpo.max_steps}: the published run plateaued by step 200-250`, 'set grpo.max_steps to 250 unless you mean to train past the plateau'));
  }
  return out;
}

// --- GPU -----------------------------------------------------------------------------------------

interface Gpu {
  name: string;
  totalMib: number;
  freeMib: number;
  computeCap: number;
}

async function gpuChecks(config: TrainConfig, command: string, env: NodeJS.ProcessEnv): Promise<PreflightCheck[]> {
  const ran = await runProbe(command, ['--query-gpu=name,memory.total,memory.free,compute_cap', '--format=csv,noheader,nounits'], env);
  if (ran.missing) {
    return [check('gpu.present', 'fail', `${command} not found on PATH: no NVIDIA driver here`, 'run pre-flight (and training) on the GPU machine, with the NVIDIA driver installed (it ships nvidia-smi)')];
  }
  if (ran.error) return [check('gpu.present', 'fail', `${command} failed: ${ran.error}`, 'check the NVIDIA driver (`nvidia-smi` must list the GPUs)')];
  const gpus = ran.stdout.split('\n').filter((l) => l.trim()).map(parseGpu);
  if (gpus.length === 0 || gpus.some((g) => g === undefined)) {
    const what = gpus.length === 0 ? 'no GPU' : `output it could not read: ${ran.stdout.trim().split('\n')[0]}`;
    return [check('gpu.present', 'fail', `${command} lists ${what}`, 'check the NVIDIA driver (`nvidia-smi` must list the GPUs)')];
  }
  const all = gpus as Gpu[];
  const used = all.slice(0, config.gpus);
  const names = [...new Set(used.map((g) => g.name))].join(', ');
  const out = [
    all.length < config.gpus
      ? check('gpu.present', 'fail', `the config asks for ${config.gpus} GPUs, ${all.length} found (${names})`, `set gpus to ${all.length}`)
      : check('gpu.present', 'pass', `${all.length} GPU${all.length === 1 ? '' : 's'}${all.length > config.gpus ? `, ${config.gpus} used` : ''}: ${names}`),
  ];
  const smallest = used.reduce((a, b) => (b.totalMib < a.totalMib ? b : a));
  const memory = `${smallest.name}, ${mib(smallest.totalMib)} total`;
  const facts = modelFacts(config, env);
  if (facts) out.push(memoryCheck(config, facts, smallest.totalMib * 2 ** 20, memory));
  else if (smallest.totalMib >= RECIPE_GPU_MIB) out.push(check('gpu.memory', 'pass', `${memory} (the size of ${config.model} is unknown here: not a folder, not in the Hugging Face cache)`));
  else {
    const fix =
      `the recipe (${config.model} with vLLM colocated) needs an 80 GB card (A100/H100 80 GB); on this one try a smaller model, ` +
      `a lower grpo.vllm_gpu_memory_utilization (${config.grpo.vllm_gpu_memory_utilization}), grpo.max_completion_length (${config.grpo.max_completion_length}) ` +
      `or episode.view_px (${config.episode.view_px}); download the model first for pre-flight to weigh it`;
    // Without the model's size there is no arithmetic to refuse on: the user's call, not a refusal.
    out.push(check('gpu.memory', 'warn', `${memory}: below the recipe's 80 GB, and the size of ${config.model} is unknown here (not a folder, not in the Hugging Face cache)`, fix));
  }
  const oldest = used.reduce((a, b) => (b.computeCap < a.computeCap ? b : a));
  out.push(
    oldest.computeCap >= 8
      ? check('gpu.bf16', 'pass', `bf16 supported (compute capability ${oldest.computeCap.toFixed(1)})`)
      : check('gpu.bf16', 'fail', `${oldest.name} has compute capability ${oldest.computeCap.toFixed(1)}: no bf16 (needs 8.0, Ampere or newer)`, 'train on an Ampere or newer GPU (A100, A10, L4, H100)'),
  );
  const busiest = used.reduce((a, b) => (b.freeMib / b.totalMib < a.freeMib / a.totalMib ? b : a));
  const inUse = busiest.totalMib - busiest.freeMib;
  out.push(
    busiest.freeMib >= 0.9 * busiest.totalMib
      ? check('gpu.free', 'pass', `${mib(busiest.freeMib)} free`)
      : check('gpu.free', 'warn', `${mib(inUse)} of ${mib(busiest.totalMib)} already in use by other processes`, 'stop what else runs on the GPU (`nvidia-smi` lists the processes): vLLM and the trainer expect the card to themselves'),
  );
  return out;
}

/** The model's size and shape: its folder or HF cache snapshot, else the built-in numbers of the recipe's model. */
function modelFacts(config: TrainConfig, env: NodeJS.ProcessEnv): ModelFacts | undefined {
  const dir = locateModel(config.model, env);
  const read = dir ? readModelFacts(dir) : undefined;
  if (read) return read;
  return config.model === 'Qwen/Qwen3.5-4B' ? { source: 'not downloaded yet', ...QWEN35_4B } : undefined;
}

/** Weights + LoRA + optimizer + vLLM's share + activations against the card, with the arithmetic. */
function memoryCheck(config: TrainConfig, facts: ModelFacts, cardBytes: number, memory: string): PreflightCheck {
  const budget = memoryBudget(config, facts, cardBytes);
  const detail = [`${config.model} (${facts.source}; shape: ${facts.shapeFrom})`, ...budget.lines];
  if (budget.fits) return { ...check('gpu.memory', 'pass', `${memory}: the run fits (about ${gib(budget.total)} of ${gib(cardBytes)})`), detail };
  const why = !budget.vllm.fits
    ? `vLLM's share (${gib(budget.vllm.share)}) cannot hold the weights and one ${config.grpo.max_model_len}-token sequence (${gib(budget.vllm.needs)})`
    : `about ${gib(budget.total)} needed`;
  const fix =
    `use a larger card (the recipe trains on an A100/H100 80 GB), a smaller model, or change ` +
    (!budget.vllm.fits
      ? `grpo.vllm_gpu_memory_utilization (${config.grpo.vllm_gpu_memory_utilization}; it needs >= ${(budget.vllm.needs / cardBytes).toFixed(2)} here) or grpo.max_model_len (${config.grpo.max_model_len})`
      : `grpo.max_completion_length (${config.grpo.max_completion_length}), grpo.vllm_gpu_memory_utilization (${config.grpo.vllm_gpu_memory_utilization}) or episode.view_px (${config.episode.view_px})`);
  return { ...check('gpu.memory', 'fail', `${memory}: the run does not fit: ${why}`, fix), detail };
}

function parseGpu(line: string): Gpu | undefined {
  const [name, total, free, cap] = line.split(',').map((s) => s.trim());
  const gpu = { name: name ?? '', totalMib: Number(total), freeMib: Number(free), computeCap: Number(cap) };
  return gpu.name && [gpu.totalMib, gpu.freeMib, gpu.computeCap].every(Number.isFinite) ? gpu : undefined;
}

const mib = (n: number) => `${Math.round(n).toLocaleString('en-US')} MiB`;

// --- Python --------------------------------------------------------------------------------------

/**
 * Versions through importlib.metadata: importing torch (seconds, and a CUDA init) is not needed to know
 * it is there. torch's declared requirements name the CUDA runtime it carries (for the driver check).
 */
function versionsScript(names: readonly string[]): string {
  return [
    'import json, sys',
    'from importlib import metadata',
    'found = {}',
    `for name in ${JSON.stringify(names)}:`,
    '    try:',
    '        found[name] = metadata.version(name)',
    '    except metadata.PackageNotFoundError:',
    '        found[name] = None',
    'try:',
    '    torch_requires = metadata.requires("torch") or []',
    'except metadata.PackageNotFoundError:',
    '    torch_requires = []',
    'print(json.dumps({"python": "%d.%d.%d" % sys.version_info[:3], "packages": found, "torch_requires": torch_requires}))',
  ].join('\n');
}

interface PythonFound {
  python: string;
  packages: Record<string, string | null>;
  torch_requires?: string[];
}

type PythonProbe = { ok: true; found: PythonFound } | { ok: false; missing: boolean; error: string };

async function probePython(python: string, env: NodeJS.ProcessEnv): Promise<PythonProbe> {
  const ran = await runProbe(python, ['-c', versionsScript(trainerPins().map((p) => p.name))], env);
  if (ran.missing) return { ok: false, missing: true, error: 'not found' };
  try {
    if (ran.error) throw new Error(ran.error);
    return { ok: true, found: JSON.parse(ran.stdout.trim().split('\n').pop() ?? '') as PythonFound };
  } catch (err) {
    return { ok: false, missing: false, error: (err as Error).message };
  }
}

function pythonChecks(config: TrainConfig, python: string, probe: PythonProbe): PreflightCheck[] {
  const install = `${python} -m pip install -r ${TRAINER_REQUIREMENTS}`;
  if (!probe.ok && probe.missing) return [check('python.version', 'fail', `${python} not found on PATH`, `install Python >= ${MIN_PYTHON.join('.')} (a venv with the trainer's requirements), and set "python" in the config to its interpreter`)];
  if (!probe.ok) return [check('python.version', 'fail', `${python} could not report its packages: ${probe.error}`, `set "python" in the config to a Python >= ${MIN_PYTHON.join('.')} interpreter`)];
  const found = probe.found;
  const out = [
    atLeast(found.python, MIN_PYTHON)
      ? check('python.version', 'pass', `${python}: Python ${found.python}`)
      : check('python.version', 'fail', `${python}: Python ${found.python}, the trainer needs >= ${MIN_PYTHON.join('.')}`, `create a venv with Python >= ${MIN_PYTHON.join('.')} and set "python" in the config to its interpreter`),
  ];
  for (const pin of trainerPins()) out.push(packageCheck(config, python, pin, found.packages[pin.name] ?? null, install));
  return out;
}

/** One package against its pin in requirements.txt: exact where pinned `==`, at least the floor where `>=`. */
function packageCheck(config: TrainConfig, python: string, pin: Pin, version: string | null, install: string): PreflightCheck {
  const { name } = pin;
  const id = `python.${name}`;
  const wanted = `${name}${pin.op}${pin.version}`;
  if (version === null) {
    // TRL runs on one GPU without accelerate's launcher; more GPUs go through `accelerate launch`.
    const status = name === 'accelerate' && config.gpus === 1 ? 'warn' : 'fail';
    const why =
      name === 'accelerate'
        ? config.gpus > 1
          ? `: ${config.gpus} GPUs launch through \`accelerate launch\``
          : ': needed for more than one GPU'
        : name === 'jmespath'
          ? ': TRL refuses tools (environment_factory) without it, after the model has loaded'
          : '';
    return check(id, status, `${name} not installed${why}`, install);
  }
  if (meetsPin(version, pin)) return check(id, 'pass', `${name} ${version}`);
  const needs = pin.op === '==' ? `requirements.txt pins ${wanted}` : `requirements.txt needs ${wanted}`;
  const extra = name === 'transformers' && !atLeast(version, MIN_TRANSFORMERS) ? ` (>= ${MIN_TRANSFORMERS.join('.')} for Qwen3.5 and environment_factory)` : '';
  return check(id, 'fail', `${name} ${version}: ${needs}${extra}`, `${python} -m pip install "${wanted}" (or ${install})`);
}

// --- NVIDIA driver -------------------------------------------------------------------------------

/** The driver nvidia-smi reports against the minimum for the CUDA the installed (else the pinned) torch carries. */
async function driverChecks(command: string, env: NodeJS.ProcessEnv, probe: PythonProbe): Promise<PreflightCheck[]> {
  const ran = await runProbe(command, ['--query-gpu=driver_version', '--format=csv,noheader'], env);
  // No nvidia-smi or a broken one: gpu.present already fails with the fix.
  if (ran.missing || ran.error) return [];
  const driver = ran.stdout.trim().split('\n')[0]?.trim() ?? '';
  if (!/^\d+(\.\d+)*$/.test(driver)) return [check('gpu.driver', 'warn', `${command} reports the driver version "${driver}", which pre-flight cannot read`, 'check the NVIDIA driver (`nvidia-smi --query-gpu=driver_version --format=csv,noheader`)')];
  const found = probe.ok ? probe.found : undefined;
  const named = torchCuda(found?.packages.torch, found?.torch_requires);
  const cuda = named ?? ASSUMED_TORCH_CUDA;
  const whose = named ? `the installed torch's CUDA ${cuda}` : `CUDA ${cuda} (assumed for the pinned torch)`;
  const min = minDriver(cuda);
  if (!min) return [check('gpu.driver', 'warn', `driver ${driver}; no minimum known for ${whose}`, "compare with the table in NVIDIA's CUDA Toolkit release notes")];
  if (driverAtLeast(driver, min.driver)) return [check('gpu.driver', 'pass', `driver ${driver} (>= ${min.driver} for ${whose})`)];
  return [
    check(
      'gpu.driver',
      'fail',
      `driver ${driver} is older than ${min.driver}, the minimum for ${whose} (NVIDIA's CUDA Toolkit release notes)`,
      `upgrade the NVIDIA driver to >= ${min.driver} (e.g. the R${min.driver.split('.')[0]} branch or newer), or install a torch built for an older CUDA that this driver supports`,
    ),
  ];
}

/** Whether a version string ("5.2.0.dev0", "3.10.12") is at least [major, minor]. */
export function atLeast(version: string, min: readonly number[]): boolean {
  const parts = version.split('.').map((p) => parseInt(p, 10));
  for (let i = 0; i < min.length; i++) {
    const have = Number.isFinite(parts[i]) ? (parts[i] as number) : 0;
    if (have !== min[i]) return have > (min[i] as number);
  }
  return true;
}

// --- Disk ----------------------------------------------------------------------------------------

function diskCheck(config: TrainConfig): PreflightCheck {
  let at = config.output_dir;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  let free: number;
  try {
    const fs = statfsSync(at);
    free = fs.bavail * fs.bsize;
  } catch (err) {
    return check('disk.free', 'fail', `cannot read the free space of ${at}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, 'set output_dir to a writable folder');
  }
  const checkpoints = derive(config).checkpoints;
  const need = checkpoints * CHECKPOINT_BYTES_R16 * (config.lora.r / 16) + TRACE_BYTES;
  const message = `${gb(free)} free for ${config.output_dir} (about ${gb(need)} needed: ${checkpoints} LoRA checkpoints, traces and logs)`;
  if (free < need) return check('disk.free', 'fail', message, 'free space there, or set output_dir to a larger disk');
  if (free < DISK_WARN_BYTES) return check('disk.free', 'warn', message, `keep at least ${gb(DISK_WARN_BYTES)} free: a resumed or longer run writes more`);
  return check('disk.free', 'pass', message);
}

const gb = (bytes: number) => `${(bytes / 1e9).toFixed(1)} GB`;

// --- Environment ---------------------------------------------------------------------------------

async function environmentChecks(config: TrainConfig, options: PreflightOptions): Promise<PreflightCheck[]> {
  if (config.env.mode === 'remote') return remoteChecks(config, config.env.url ?? '', options, false);
  return localChecks(config, options);
}

/** Reachable, serving the split, and generation_batch_size sessions each playing a real step at once. */
async function remoteChecks(config: TrainConfig, url: string, options: PreflightOptions, local: boolean): Promise<PreflightCheck[]> {
  const split = config.env.split;
  const timeoutMs = options.envTimeoutMs ?? 60_000;
  let splits;
  try {
    splits = await new RemoteEnvClient(url, { timeoutMs }).splits();
  } catch (err) {
    return [check('env.reachable', 'fail', (err as Error).message, `start it (\`geolab env serve\`) or correct env.url; a remote environment must be up before the run`)];
  }
  const out = [check('env.reachable', 'pass', local ? `embedded server started for the check on ${url}` : `${url} answers`)];
  const served = splits.find((s) => s.name === split);
  if (!served || served.num_tasks === 0) {
    const list = splits.map((s) => `${s.name} (${s.num_tasks})`).join(', ') || 'none';
    out.push(check('env.split', 'fail', served ? `split ${split} has no tasks` : `split ${split} is not served; served: ${list}`, 'set env.split to a served split, or serve the split'));
    return out;
  }
  out.push(check('env.split', 'pass', `split ${split}: ${served.num_tasks} tasks`));
  out.push(await sessionsCheck(url, split, served.num_tasks, config.grpo.generation_batch_size, timeoutMs));
  return out;
}

/** Like the trainer's first generation batch: that many sessions at once, each resetting and taking one look. */
async function sessionsCheck(url: string, split: string, size: number, count: number, timeoutMs: number): Promise<PreflightCheck> {
  const clients = Array.from({ length: count }, () => new RemoteEnvClient(url, { timeoutMs, connectTimeoutMs: 10_000 }));
  const played = await Promise.allSettled(
    clients.map(async (client, i) => {
      await client.reset({ split, index: i % size });
      const step = await client.step({ op: 'look', heading_deg: (i * 45) % 360 });
      if (step.observation.image_kind !== 'view') throw new Error(`a look answered without a view: ${step.observation.feedback}`);
    }),
  );
  await Promise.all(clients.map((c) => c.close()));
  const failed = played.filter((p): p is PromiseRejectedResult => p.status === 'rejected');
  const ok = count - failed.length;
  if (failed.length === 0) return check('env.sessions', 'pass', `${count} concurrent sessions each played a step (grpo.generation_batch_size ${count})`);
  const first = (failed[0]!.reason as Error).message;
  // The cap comes as an error code, or as the reason a connection was dropped before its reset.
  const capped = failed.some(({ reason }) => (reason as { code?: string }).code === 'CAPACITY_REACHED' || /cap of \d+ sessions/.test((reason as Error).message));
  return check(
    'env.sessions',
    'fail',
    `${ok} of ${count} concurrent sessions played a step; first error: ${first}`,
    capped ? `raise the server's --max-sessions to at least ${count}` : 'fix what the first error names on the environment server',
  );
}

/** The embedded server, started in-process on loopback for the check, as `train launch` would start it. */
async function localChecks(config: TrainConfig, options: PreflightOptions): Promise<PreflightCheck[]> {
  let served: LocalSplit;
  try {
    served = await localSplit(config, options.workspace);
  } catch (err) {
    return [check('env.split', 'fail', (err as Error).message, 'fix env.tasks / env.split in the config')];
  }
  if (!served.tasks) {
    const list = [...served.sizes].map(([n, k]) => `${n} (${k})`).join(', ') || 'none';
    return [check('env.split', 'fail', `split ${config.env.split} is not a task set of the workspace; it has ${list}`, 'set env.split to one of them, or import the tasks (`geolab tasks import FILE --name NAME`)')];
  }
  const out = [panoramaCheck(config, served)];
  const [{ createEnvironment }, { startServer }] = await Promise.all([import('../env/environment.js'), import('../env/server.js')]);
  const env = createEnvironment({
    splits: new Map([[config.env.split, served.tasks]]),
    panoramasDir: served.panos,
    demo: served.demo,
  });
  try {
    const server = await startServer(env, { host: '127.0.0.1', port: 0, maxSessions: Math.max(DEFAULT_MAX_SESSIONS, config.grpo.generation_batch_size) });
    try {
      out.unshift(...(await remoteChecks(config, server.url, options, true)));
    } finally {
      await server.close();
    }
  } finally {
    await env.close();
  }
  return out;
}

interface LocalSplit {
  tasks: readonly Task[] | undefined;
  sizes: Map<string, number>;
  panos: string;
  demo: boolean;
  /** What `geolab panos fetch` takes for these tasks: the task file or the task set's name. */
  source: string;
}

async function localSplit(config: TrainConfig, workspace: string | undefined): Promise<LocalSplit> {
  const split = config.env.split;
  const [{ openWorkspace }, { workspaceSplits, loadSplitFiles }] = await Promise.all([import('../store/index.js'), import('../env/task-splits.js')]);
  const ws = await openWorkspace(workspace);
  try {
    if (config.env.tasks.length > 0) {
      const splits = await loadSplitFiles(config.env.tasks);
      const spec = config.env.tasks.find((s) => s.startsWith(`${split}=`));
      const { panoramaCache } = await import('../store/settings.js');
      return {
        tasks: splits.get(split),
        sizes: new Map([...splits].map(([n, t]) => [n, t.length])),
        panos: panoramaCache(ws.db, ws.paths.panoramas, config.env.panos),
        demo: false,
        source: spec ? spec.slice(split.length + 1) : split,
      };
    }
    const all = await workspaceSplits(ws, config.env.panos);
    const loaded = all.load([split]);
    return {
      tasks: loaded.splits.get(split),
      sizes: all.sizes,
      panos: loaded.panoramas.get(split) ?? ws.paths.panoramas,
      demo: loaded.demo.includes(split),
      source: split,
    };
  } finally {
    ws.close();
  }
}

function panoramaCheck(config: TrainConfig, served: LocalSplit): PreflightCheck {
  const tasks = served.tasks ?? [];
  if (served.demo) return check('panos.present', 'pass', `split ${config.env.split} is the demo's: its panoramas are drawn as needed into ${served.panos}`);
  let framesMissing = 0;
  let frames = 0;
  let tasksMissing = 0;
  for (const task of tasks) {
    const missing = task.frames.filter((f) => !existsSync(panoramaFile(served.panos, f.image_id))).length;
    frames += task.frames.length;
    framesMissing += missing;
    if (missing > 0) tasksMissing++;
  }
  if (tasksMissing === 0) return check('panos.present', 'pass', `all ${frames} panoramas of ${tasks.length} tasks in ${served.panos}`);
  return check(
    'panos.present',
    'fail',
    `${tasksMissing} of ${tasks.length} tasks miss panoramas (${framesMissing} of ${frames} frames) in ${served.panos}`,
    `geolab panos fetch ${served.source} --panos ${served.panos}   (needs MAPILLARY_ACCESS_TOKEN)`,
  );
}

// --- Secrets -------------------------------------------------------------------------------------

function secretChecks(config: TrainConfig, env: NodeJS.ProcessEnv): PreflightCheck[] {
  return config.secrets.map((name) => {
    // Registered even though never printed: whatever else prints (an error body) stays clean.
    const value = registerSecret(env[name], `$${name}`);
    return value
      ? check(`secret.${name}`, 'pass', `${name} set`)
      : check(`secret.${name}`, 'fail', `${name} missing`, `export ${name} in the shell that launches the run (never in the config)`);
  });
}

// --- Probes --------------------------------------------------------------------------------------

interface Probe {
  stdout: string;
  missing: boolean;
  error?: string;
}

/** Runs a probe; a command that is not there is `missing`, any other failure its first stderr line. */
function runProbe(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<Probe> {
  return new Promise((resolve) => {
    execFile(command, args, { env, timeout: 60_000, maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      if (!err) return resolve({ stdout, missing: false });
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EACCES') return resolve({ stdout: '', missing: true });
      const said = String(stderr).trim().split('\n').filter(Boolean).pop() ?? String(stdout).trim().split('\n')[0];
      resolve({ stdout, missing: false, error: said || (err.killed ? 'timed out' : `exit ${String(code)}`) });
    });
  });
}
