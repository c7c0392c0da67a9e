/**
 * `geolab agent`: one episode played by a model over an OpenAI-compatible endpoint (or by a
 * baseline), against the embedded environment or a remote server, recorded in the workspace. On a
 * terminal it runs in the TUI's Live screen; otherwise (or with --headless/--json) it prints one plain
 * line per turn and the outcome.
 *
 * Exit codes: 0 the episode finished; 1 it failed (environment error, leak guard); 2 bad usage;
 * 3 the model endpoint or the environment cannot be reached; 130 interrupted.
 */
import type { CompletedEpisode, FailedEpisode } from '../../core/episode.js';
import { EXIT, UsageError } from '../../core/errors.js';
import type { LatLon } from '../../core/geodesy.js';
import { truthOf, type Task } from '../../core/tasks.js';
import type { EnvClient } from '../../env/client/types.js';
import { EnvError } from '../../env/types.js';
import { knowledgeFromSpec, knowledgeFromTask, type GuardKnowledge } from '../../agent/leak-guard.js';
import { checkModel, DEFAULT_MAX_ATTEMPTS, type Endpoint, type ServedModel } from '../../agent/openai.js';
import { fixedPolicy, priorPolicy, randomLandPolicy } from '../../agent/policies/baselines.js';
import { createModelPolicy, promptVersionOf, type Protocol } from '../../agent/policies/model.js';
import type { ToolSet } from '../../agent/protocols/tools.js';
import { runHeadless } from '../../agent/runner.js';
import type { Policy, RunOptions } from '../../agent/types.js';
import { hashString } from '../../demo/random.js';
import { workspaceDir, workspacePaths } from '../../store/workspace.js';
import type { GlobalOptions } from '../main.js';
import { printJson, printLine, warn } from '../output.js';
import { canDrawTui } from '../tty.js';

export type PolicyName = 'model' | 'random-land' | 'fixed' | 'prior';

export interface AgentOptions extends GlobalOptions {
  policy?: PolicyName;
  model?: string;
  baseUrl?: string;
  /** Name of the environment variable holding the API key: the key itself never passes a flag. */
  apiKeyEnv?: string;
  protocol?: Protocol;
  tools?: ToolSet;
  point?: string;
  split?: string;
  task?: number;
  env?: string;
  maxTurns?: number;
  imageSize?: number;
  temperature?: number;
  maxTokens?: number;
  headless?: boolean;
  /** Seed of --policy random-land (default: one per task, so a sweep does not guess one point everywhere). */
  seed?: number;
  /** Seconds per model request attempt. */
  timeout?: number;
}

const POLICIES: readonly PolicyName[] = ['model', 'random-land', 'fixed', 'prior'];
const DEFAULT_SPLIT = 'eval';
/** The recipe's completion cap (DESIGN §7). */
const DEFAULT_MAX_TOKENS = 6144;

export async function agentCommand(opts: AgentOptions): Promise<void> {
  const settings = checkOptions(opts);
  // Checked before the environment starts: a wrong --model or a dead endpoint should fail in a second.
  const served = settings.endpoint ? await checkModel(settings.endpoint.baseUrl, settings.endpoint.model, settings.endpoint) : undefined;

  const environment = await openEnvironment(opts, settings.split, settings.index);
  try {
    const policy = buildPolicy(opts, settings, environment, served);
    const { endpoint } = settings;
    // The harness's config, on every record and in the run's run.json.
    const config = {
      mode: endpoint ? settings.protocol : 'baseline',
      prompt_version: endpoint ? promptVersionOf(settings.protocol) : null,
      policy: settings.policy,
      base_url: endpoint?.baseUrl ?? null,
      retries: endpoint ? (endpoint.maxAttempts ?? DEFAULT_MAX_ATTEMPTS) - 1 : 0,
      ...(endpoint && settings.protocol === 'tools' ? { tools: settings.tools } : {}),
      ...(endpoint ? { image_size: settings.imageSizePx } : {}),
    };
    const { openWorkspace } = await import('../../store/index.js');
    const { createRecorder } = await import('../../agent/recorder.js');
    const ws = await openWorkspace(opts.workspace);
    try {
      const recorder = createRecorder(ws, { config });
      const controller = new AbortController();
      const interrupt = () => controller.abort();
      process.once('SIGINT', interrupt);
      const run: RunOptions = {
        client: environment.client,
        policy,
        split: settings.split,
        index: settings.index,
        task: environment.task,
        maxTurns: settings.maxTurns,
        config,
        sink: recorder,
        signal: controller.signal,
      };
      let record: CompletedEpisode | FailedEpisode;
      try {
        record = await play(run, opts);
      } finally {
        process.off('SIGINT', interrupt);
      }
      if (opts.json) printJson(record);
      warn(`geolab: episode ${record.episode_id} recorded in ${recorder.runDir}`);
      const failed = typeof record.error === 'string';
      process.exitCode = controller.signal.aborted ? EXIT.interrupted : failed ? EXIT.problemFound : EXIT.ok;
    } finally {
      ws.close();
    }
  } finally {
    await environment.close();
  }
}

async function play(run: RunOptions, opts: AgentOptions): Promise<CompletedEpisode | FailedEpisode> {
  if (!opts.headless && !opts.json && canDrawTui()) {
    const openLiveScreen = await loadLiveScreen();
    if (openLiveScreen) return openLiveScreen(run);
  }
  return runHeadless({ ...run, print: opts.json ? () => {} : printLine });
}

/** The TUI's Live screen for a running episode (provided by src/tui/live-entry.ts). */
export type OpenLiveScreen = (run: RunOptions) => Promise<CompletedEpisode | FailedEpisode>;

/** Until the TUI provides its Live entry the run falls back to headless output. */
async function loadLiveScreen(): Promise<OpenLiveScreen | null> {
  // A variable specifier: the module may not exist yet, and must not be required to compile.
  const entry = '../../tui/live-entry.js';
  try {
    return ((await import(entry)) as { openLiveScreen: OpenLiveScreen }).openLiveScreen;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'ERR_MODULE_NOT_FOUND' && e.message.includes('live-entry')) return null;
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------
// Options

interface Settings {
  policy: PolicyName;
  protocol: Protocol;
  tools: ToolSet;
  split: string;
  index: number;
  maxTurns: number;
  imageSizePx: number;
  point: LatLon | null;
  endpoint: Endpoint | null;
}

function checkOptions(opts: AgentOptions): Settings {
  const policy = opts.policy ?? 'model';
  if (!POLICIES.includes(policy)) throw new UsageError(`--policy must be one of ${POLICIES.join(', ')}, got "${policy}"`);
  const protocol = opts.protocol ?? 'tools';
  if (protocol !== 'tools' && protocol !== 'json') throw new UsageError(`--protocol must be tools or json, got "${String(protocol)}"`);
  const tools = opts.tools ?? 'trained';
  if (tools !== 'trained' && tools !== 'all') throw new UsageError(`--tools must be trained or all, got "${String(tools)}"`);
  const index = opts.task ?? 0;
  integerIn('--task', index, 0, Number.MAX_SAFE_INTEGER);
  const maxTurns = opts.maxTurns ?? 12;
  integerIn('--max-turns', maxTurns, 1, 200);
  const imageSizePx = opts.imageSize ?? 448;
  integerIn('--image-size', imageSizePx, 32, 4096);
  if (opts.maxTokens !== undefined) integerIn('--max-tokens', opts.maxTokens, 1, 1_000_000);
  if (opts.temperature !== undefined && !(opts.temperature >= 0 && opts.temperature <= 2)) {
    throw new UsageError(`--temperature must be from 0 to 2, got ${opts.temperature}`);
  }
  if (opts.timeout !== undefined && !(opts.timeout > 0)) throw new UsageError(`--timeout must be a number of seconds above 0, got ${opts.timeout}`);
  const point = opts.point === undefined ? null : parsePoint(opts.point);
  if (policy === 'fixed' && !point) throw new UsageError('--policy fixed needs --point LAT,LON');
  return {
    policy,
    protocol,
    tools,
    split: opts.split ?? DEFAULT_SPLIT,
    index,
    maxTurns,
    imageSizePx,
    point,
    endpoint: policy === 'model' ? endpointOf(opts) : null,
  };
}

function endpointOf(opts: AgentOptions): Settings['endpoint'] {
  if (!opts.model) throw new UsageError('--policy model needs --model NAME (as the endpoint lists it at /v1/models)');
  if (!opts.baseUrl) throw new UsageError('--policy model needs --base-url URL, e.g. http://127.0.0.1:8000/v1');
  let url: URL;
  try {
    url = new URL(opts.baseUrl);
  } catch {
    throw new UsageError(`--base-url must be an http(s) URL, got "${opts.baseUrl}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--base-url must be an http(s) URL, got "${opts.baseUrl}"`);
  let apiKey: string | undefined;
  if (opts.apiKeyEnv !== undefined) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(opts.apiKeyEnv)) {
      throw new UsageError(`--api-key-env takes the NAME of an environment variable (e.g. OPENAI_API_KEY), not the key itself`);
    }
    apiKey = process.env[opts.apiKeyEnv] || undefined;
    if (!apiKey) warn(`geolab: $${opts.apiKeyEnv} is not set: sending no API key`);
  }
  return {
    baseUrl: opts.baseUrl.replace(/\/+$/, ''),
    model: opts.model,
    apiKey,
    temperature: opts.temperature,
    maxTokens: opts.maxTokens ?? DEFAULT_MAX_TOKENS,
    ...(opts.timeout !== undefined ? { timeoutMs: opts.timeout * 1000 } : {}),
  };
}

function integerIn(flag: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max) throw new UsageError(`${flag} must be an integer from ${min} to ${max}, got ${value}`);
}

function parsePoint(text: string): LatLon {
  const parts = text.split(',').map((p) => Number(p.trim()));
  const [lat, lon] = parts;
  if (parts.length !== 2 || text.split(',').some((p) => p.trim() === '') || lat === undefined || lon === undefined || !(Math.abs(lat) <= 90) || !(Math.abs(lon) <= 180)) {
    throw new UsageError(`--point expects LAT,LON in degrees (e.g. 48.8584,2.2945), got "${text}"`);
  }
  return { lat, lon };
}

// ---------------------------------------------------------------------------------------------
// Environment and policy

interface OpenedEnvironment {
  client: EnvClient;
  /** What the leak guard may know: the whole task when embedded, the Task API's spec when remote. */
  guard: GuardKnowledge;
  /** Task fields for the record beyond what the environment reports. */
  task: Record<string, unknown>;
  /** Start points of the tasks --policy prior averages over (embedded only). */
  priorPoints: { source: string; points: LatLon[] } | null;
  close(): Promise<void>;
}

async function openEnvironment(opts: AgentOptions, split: string, index: number): Promise<OpenedEnvironment> {
  if (opts.env) {
    const { RemoteEnvClient } = await import('../../env/client/remote.js');
    const client = new RemoteEnvClient(opts.env);
    let spec: Record<string, unknown>;
    try {
      spec = (await client.http('POST', '/geoguesser_env/task', { split, index })) as Record<string, unknown>;
    } catch (err) {
      if (err instanceof EnvError) throw new UsageError(`--split ${split} --task ${index}: ${err.message}`);
      throw err;
    }
    return {
      client,
      guard: knowledgeFromSpec(spec),
      task: { task_id: spec.task_id ?? null, sequence_id: spec.sequence_id ?? null },
      priorPoints: null,
      close: () => client.close(),
    };
  }
  const { demoSplits } = await import('../../env/task-splits.js');
  const { createEnvironment } = await import('../../env/environment.js');
  const { EmbeddedEnvClient } = await import('../../env/client/embedded.js');
  const splits = await demoSplits();
  const tasks = splits.get(split);
  if (!tasks) throw new UsageError(`--split ${split}: the embedded environment serves ${[...splits.keys()].join(', ')}`);
  const task = tasks[index];
  if (!task) throw new UsageError(`--task ${index}: split ${split} has tasks 0 to ${tasks.length - 1}`);
  // One episode at a time: rendering on this thread beats starting worker threads.
  const env = createEnvironment({ splits, panoramasDir: workspacePaths(workspaceDir(opts.workspace)).panoramas, demo: true, workers: 0 });
  const priorSplit = splits.has('train') ? 'train' : split;
  return {
    client: new EmbeddedEnvClient(env),
    guard: knowledgeFromTask(task),
    task: recordedTask(task),
    priorPoints: { source: `${priorSplit} split`, points: (splits.get(priorSplit) ?? []).map(truthOf) },
    close: () => env.close(),
  };
}

function recordedTask(task: Task): Record<string, unknown> {
  return { task_id: task.task_id, country: task.country ?? null, sequence_id: task.sequence_id ?? null, attribution: task.attribution ?? null };
}

function buildPolicy(
  opts: AgentOptions,
  settings: Settings,
  environment: OpenedEnvironment,
  served: ServedModel | undefined,
): Policy {
  if (settings.endpoint) {
    return createModelPolicy({
      endpoint: settings.endpoint,
      protocol: settings.protocol,
      tools: settings.tools,
      imageSizePx: settings.imageSizePx,
      guard: environment.guard,
      served,
    });
  }
  switch (settings.policy) {
    case 'fixed':
      return fixedPolicy(settings.point!);
    case 'prior':
      if (!environment.priorPoints) throw new UsageError('--policy prior needs the task files: run it against the embedded environment (no --env)');
      return priorPolicy(environment.priorPoints.points, environment.priorPoints.source);
    default:
      return randomLandPolicy(opts.seed ?? hashString(`${settings.split}:${settings.index}`));
  }
}
