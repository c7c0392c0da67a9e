/**
 * `geolab agent`: one episode played by a model over an OpenAI-compatible endpoint (or by a
 * baseline), against the embedded environment or a remote server, recorded in the workspace. On a
 * terminal it runs in the TUI's Live screen; otherwise (or with --headless/--json) it prints one plain
 * line per turn and the outcome.
 *
 * Exit codes: 0 the episode finished; 1 it failed (environment error, leak guard); 2 bad usage;
 * 3 the model endpoint or the environment cannot be reached, before or during the episode (which is
 * then recorded as failed, never scored); 130 interrupted (SIGINT, or aborted on the Live screen).
 */
import type { CompletedEpisode, FailedEpisode } from '../../core/episode.js';
import { EXIT, UsageError } from '../../core/errors.js';
import { integerIn } from '../../core/values.js';
import { checkedPanosDir } from '../../files.js';
import type { LatLon } from '../../core/geodesy.js';
import { openAgentRun } from '../../agent/agent-run.js';
import {
  apiKeyEnvProblem,
  apiKeyFrom,
  baseUrlProblem,
  DEFAULT_IMAGE_SIZE_PX,
  DEFAULT_MAX_TURNS,
  DEFAULT_PROTOCOL,
  DEFAULT_SPLIT,
  maxReplyProblem,
  modelEndpoint,
  POLICIES,
  PROTOCOLS,
  type AgentSettings,
  type PolicyName,
} from '../../agent/agent-settings.js';
import { checkModel } from '../../agent/openai.js';
import type { Protocol } from '../../agent/policies/model.js';
import { loadPromptTemplate, type PromptTemplate } from '../../agent/protocols/template.js';
import type { ToolSet } from '../../agent/protocols/tools.js';
import { runHeadless } from '../../agent/headless.js';
import type { RunOptions } from '../../agent/types.js';
import type { GlobalOptions } from '../options.js';
import { episodeExitCode, printJson, printLine, warn } from '../output.js';
import { canDrawTui } from '../tty.js';

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
  maxReplyMb?: number;
  panos?: string;
  fetch?: boolean;
  /** A prompt template with the harness's placeholders. */
  promptFile?: string;
}

export async function agentCommand(opts: AgentOptions): Promise<void> {
  const settings = checkOptions(opts);
  const { endpoint } = settings;
  // Checked before the environment starts: a wrong --model or a dead endpoint should fail in a second.
  const served = endpoint ? await checkModel(endpoint.baseUrl, endpoint.model, endpoint) : undefined;

  const { openWorkspace } = await import('../../store/index.js');
  const ws = await openWorkspace(opts.workspace);
  try {
    const agentRun = await openAgentRun(settings, { workspace: ws, served });
    try {
      const { run } = agentRun;
      const controller = new AbortController();
      const interrupt = () => controller.abort();
      process.once('SIGINT', interrupt);
      let record: CompletedEpisode | FailedEpisode;
      try {
        record = await play({ ...run, signal: controller.signal }, opts);
      } finally {
        process.off('SIGINT', interrupt);
      }
      if (opts.json) printJson(record);
      warn(`geolab: episode ${record.episode_id} recorded in ${run.sink.runDir}`);
      process.exitCode = controller.signal.aborted ? EXIT.interrupted : episodeExitCode(record);
    } finally {
      await agentRun.close();
    }
  } finally {
    ws.close();
  }
}

async function play(run: RunOptions, opts: AgentOptions): Promise<CompletedEpisode | FailedEpisode> {
  if (!opts.headless && !opts.json && canDrawTui()) {
    // A literal specifier, so the bundle holds the Live screen's chunk (a variable one was left out
    // of the build, and every terminal run fell back to plain output).
    const { openLiveScreen } = await import('../../tui/live-entry.js');
    return openLiveScreen(run);
  }
  return runHeadless({ ...run, print: opts.json ? () => {} : printLine });
}


// ---------------------------------------------------------------------------------------------
// Options

function checkOptions(opts: AgentOptions): AgentSettings {
  const policy = opts.policy ?? 'model';
  if (!POLICIES.includes(policy)) throw new UsageError(`--policy must be one of ${POLICIES.join(', ')}, got "${policy}"`);
  const protocol = opts.protocol ?? DEFAULT_PROTOCOL;
  if (!PROTOCOLS.includes(protocol)) throw new UsageError(`--protocol must be ${PROTOCOLS.join(' or ')}, got "${String(protocol)}"`);
  const tools = opts.tools ?? 'trained';
  if (tools !== 'trained' && tools !== 'all') throw new UsageError(`--tools must be trained or all, got "${String(tools)}"`);
  const index = opts.task ?? 0;
  integerIn('--task', index, 0, Number.MAX_SAFE_INTEGER);
  const maxTurns = opts.maxTurns ?? DEFAULT_MAX_TURNS;
  integerIn('--max-turns', maxTurns, 1, 200);
  const imageSizePx = opts.imageSize ?? DEFAULT_IMAGE_SIZE_PX;
  integerIn('--image-size', imageSizePx, 32, 4096);
  if (opts.maxTokens !== undefined) integerIn('--max-tokens', opts.maxTokens, 1, 1_000_000);
  if (opts.temperature !== undefined && !(opts.temperature >= 0 && opts.temperature <= 2)) {
    throw new UsageError(`--temperature must be from 0 to 2, got ${opts.temperature}`);
  }
  if (opts.timeout !== undefined && !(opts.timeout > 0)) throw new UsageError(`--timeout must be a number of seconds above 0, got ${opts.timeout}`);
  const replyProblem = opts.maxReplyMb === undefined ? null : maxReplyProblem(opts.maxReplyMb);
  if (replyProblem) throw new UsageError(`--max-reply-mb ${replyProblem}`);
  const point = opts.point === undefined ? null : parsePoint(opts.point);
  if (policy === 'fixed' && !point) throw new UsageError('--policy fixed needs --point LAT,LON');
  if (policy === 'prior' && opts.env) throw new UsageError('--policy prior needs the task files: run it against the embedded environment (no --env)');
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
    seed: opts.seed,
    envUrl: opts.env,
    panos: opts.panos === undefined ? undefined : checkedPanosDir(opts.panos, '--panos'),
    fetch: opts.fetch,
    ...(opts.promptFile !== undefined ? { prompt: promptOf(opts.promptFile, policy) } : {}),
  };
}

function promptOf(file: string, policy: PolicyName): PromptTemplate {
  if (policy !== 'model') throw new UsageError(`--prompt-file is for --policy model: the ${policy} baseline sends no prompt`);
  return loadPromptTemplate(file);
}

function endpointOf(opts: AgentOptions): AgentSettings['endpoint'] {
  if (!opts.model) throw new UsageError('--policy model needs --model NAME (as the endpoint lists it at /v1/models)');
  if (!opts.baseUrl) throw new UsageError('--policy model needs --base-url URL, e.g. http://127.0.0.1:8000/v1');
  const urlProblem = baseUrlProblem(opts.baseUrl);
  if (urlProblem) throw new UsageError(`--base-url ${urlProblem}`);
  if (opts.apiKeyEnv !== undefined) {
    const nameProblem = apiKeyEnvProblem(opts.apiKeyEnv);
    if (nameProblem) throw new UsageError(`--api-key-env ${nameProblem}`);
  }
  const apiKey = apiKeyFrom(opts.apiKeyEnv);
  if (opts.apiKeyEnv !== undefined && !apiKey) warn(`geolab: $${opts.apiKeyEnv} is not set: sending no API key`);
  return modelEndpoint({
    model: opts.model,
    baseUrl: opts.baseUrl,
    apiKey,
    apiKeyEnv: opts.apiKeyEnv,
    temperature: opts.temperature,
    maxTokens: opts.maxTokens,
    timeoutS: opts.timeout,
    maxReplyMb: opts.maxReplyMb,
  });
}

function parsePoint(text: string): LatLon {
  const parts = text.split(',').map((p) => Number(p.trim()));
  const [lat, lon] = parts;
  if (parts.length !== 2 || text.split(',').some((p) => p.trim() === '') || lat === undefined || lon === undefined || !(Math.abs(lat) <= 90) || !(Math.abs(lon) <= 180)) {
    throw new UsageError(`--point expects LAT,LON in degrees (e.g. 48.8584,2.2945), got "${text}"`);
  }
  return { lat, lon };
}
