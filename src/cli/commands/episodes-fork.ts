/**
 * `geolab episodes fork ID|FILE[:LINE] --turn K`: the episode replayed up to turn K (its recorded
 * decisions, every view checked against the record), then played on live by a model (`--model` with
 * `--base-url`, or `--models FILE --name N`) or a person (`--play`), recorded in the workspace under a
 * run `fork-<time>` with `forked_from` (docs/episodes.md#fork-an-episode). The work is src/agent/fork.ts.
 *
 * Exit codes: 0 the fork finished; 1 the environment changed since the recording (nothing recorded),
 * or the fork failed; 2 bad usage; 3 the model endpoint or the environment cannot be reached; 130
 * interrupted.
 */
import { isCompleted, type CompletedEpisode, type EpisodeRecord, type FailedEpisode } from '../../core/episode.js';
import { EXIT, UsageError } from '../../core/errors.js';
import { endpointOfSpec, oneModelSpec, type ModelFlags } from '../../agent/endpoint-choice.js';
import type { ForkPlan } from '../../agent/fork.js';
import type { ForkSession } from '../../agent/fork-session.js';
import type { RunnerEvent } from '../../agent/types.js';
import type { Workspace } from '../../store/index.js';
import type { GlobalOptions } from '../options.js';
import { episodeExitCode, printJson, printLine, warn } from '../output.js';
import { canDrawTui } from '../tty.js';

export interface ForkCommandOptions extends GlobalOptions, ModelFlags {
  turn?: number;
  /** The entry of --models. */
  name?: string;
  play?: boolean;
  headless?: boolean;
  env?: string;
}

export async function forkCommand(ref: string, opts: ForkCommandOptions): Promise<void> {
  const { turn, tui } = checkFlags(opts);
  // The model is checked first: a wrong name or a dead endpoint should fail in a second.
  const model = opts.play ? null : await modelOf(opts);

  const { openWorkspace } = await import('../../store/index.js');
  const ws = await openWorkspace(opts.workspace);
  try {
    const { openForkSession } = await import('../../agent/fork-session.js');
    const fork = await openForkSession(ws, { ref, turn, envUrl: opts.env, model });
    try {
      const { record, interrupted } = await play(ws, fork, tui, opts);
      report(fork.plan, record, fork.sink.runId, opts);
      warn(`geolab: episode ${record.episode_id} recorded in ${fork.sink.runDir}`);
      process.exitCode = interrupted ? EXIT.interrupted : episodeExitCode(record);
    } finally {
      await fork.environment.close();
    }
  } finally {
    ws.close();
  }
}

/** Who plays on and where, as the flags say; refused before anything is opened. */
function checkFlags(opts: ForkCommandOptions): { turn: number; tui: boolean } {
  if (opts.turn === undefined) throw new UsageError('expected --turn K: the first turn played live (turns before it are replayed as recorded)');
  const modelFlags = opts.model !== undefined || opts.baseUrl !== undefined || opts.models !== undefined || opts.name !== undefined;
  if (opts.play && modelFlags) throw new UsageError('give --play (you play on) or a model (--model/--base-url, --models/--name), not both');
  if (!opts.play && !modelFlags) throw new UsageError('who plays on from turn K? expected --model NAME --base-url URL, --models FILE [--name N], or --play');
  const tui = !opts.headless && !opts.json && canDrawTui();
  if (opts.play && !tui) throw new UsageError('--play needs a terminal (stdin and stdout a TTY) for the Live screen, and no --headless or --json');
  if (!opts.play && !tui && !opts.headless && !opts.json) {
    throw new UsageError('no terminal for the Live screen: add --headless to play on with the model and print one line per turn');
  }
  return { turn: opts.turn, tui };
}

/** The fork played on the Live screen or headless; Ctrl-C aborts a headless one. */
async function play(ws: Workspace, fork: ForkSession, tui: boolean, opts: ForkCommandOptions): Promise<{ record: CompletedEpisode | FailedEpisode; interrupted: boolean }> {
  const { plan, next, human, environment, sink, config } = fork;
  const controller = new AbortController();
  const interrupt = () => controller.abort();
  process.once('SIGINT', interrupt);
  try {
    const record = tui ? await onLiveScreen({ ws, plan, next, human, environment, sink, config }) : await headless({ ws, plan, next, client: environment.client, sink, config, signal: controller.signal }, opts);
    return { record, interrupted: controller.signal.aborted };
  } finally {
    process.off('SIGINT', interrupt);
  }
}

async function modelOf(opts: ForkCommandOptions) {
  const spec = oneModelSpec(opts);
  const endpoint = endpointOfSpec(spec, spec.baseUrls[0]!);
  if (opts.apiKeyEnv !== undefined && !endpoint.apiKey) warn(`geolab: $${opts.apiKeyEnv} is not set: sending no API key`);
  const { checkModel } = await import('../../agent/openai.js');
  const served = await checkModel(endpoint.baseUrl, endpoint.model, endpoint);
  return { endpoint, served, name: spec.name, thinking: spec.thinking };
}

type Run = Parameters<typeof import('../../agent/fork.js').forkEpisode>[0];

async function headless(run: Run, opts: ForkCommandOptions): Promise<CompletedEpisode | FailedEpisode> {
  const [{ forkEpisode }, { turnLine, outcomeLine }] = await Promise.all([import('../../agent/fork.js'), import('../../agent/headless.js')]);
  const print = opts.json ? () => {} : printLine;
  const onEvent = (event: RunnerEvent) => {
    if (event.type === 'turn') print(`${event.turn.turn < run.plan.turn ? 'replayed' : 'live    '}  ${turnLine(event.turn)}`);
    else if (event.type === 'finished') print(outcomeLine(event.record));
  };
  return forkEpisode({ ...run, onEvent });
}

/** The Live screen on the fork: the model behind its pause gate, or the person at the keys. */
async function onLiveScreen(run: Omit<Run, 'client' | 'signal'> & { environment: { client: Run['client'] }; human?: import('../../agent/policies/human.js').HumanPolicy }) {
  const [{ forkRun, markFork }, { openLiveScreen }] = await Promise.all([import('../../agent/fork.js'), import('../../tui/live-entry.js')]);
  const { run: options, policy, forkedFrom } = forkRun({ ...run, client: run.environment.client });
  const record = await openLiveScreen({ ...options, ...(run.human ? { human: run.human } : {}) });
  if (policy.environmentChanged) throw policy.environmentChanged;
  return markFork(record, forkedFrom);
}

/** The fork beside the original: distance and reward side by side, and how to compare them. */
function report(plan: ForkPlan, record: CompletedEpisode | FailedEpisode, runId: string, opts: ForkCommandOptions): void {
  const original = plan.record;
  const outcome = (r: EpisodeRecord) => (isCompleted(r) ? { distance_km: r.outcome.distance_km ?? null, reward: r.outcome.reward ?? null } : { distance_km: null, reward: null });
  if (opts.json) {
    printJson({ episode_id: record.episode_id, run_id: runId, forked_from: { episode_id: original.episode_id, turn: plan.turn }, original: outcome(original), fork: { ...outcome(record), ...(isCompleted(record) ? {} : { error: record.error }) } });
    return;
  }
  const km = (value: number | null) => (value === null ? '-' : `${value.toFixed(1)} km`);
  const reward = (value: number | null) => (value === null ? '-' : value.toFixed(4));
  const [a, b] = [outcome(original), outcome(record)];
  printLine(`fork ${record.episode_id} (run ${runId}), from ${original.episode_id} at turn ${plan.turn}`);
  printLine(`            ${'original'.padEnd(12)}  fork`);
  printLine(`distance    ${km(a.distance_km).padEnd(12)}  ${km(b.distance_km)}`);
  printLine(`reward      ${reward(a.reward).padEnd(12)}  ${reward(b.reward)}`);
  printLine(`compare: geolab episodes compare ${original.episode_id} ${record.episode_id}`);
}
