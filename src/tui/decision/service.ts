/**
 * The Player's `R` and `F` for real (services.ts, DecisionService): the form's prefill, a retry
 * through src/agent/retry.ts and a fork through src/agent/fork.ts, each on an episode of the
 * workspace. A fork's Live source opens its environment in `prepare` (after the Live screen is up),
 * records through the workspace recorder under a run `fork-<time>` as `geolab episodes fork` does,
 * and frees the environment in `dispose`.
 */
import { DEFAULT_MAX_TURNS, apiKeyEnvProblem, apiKeyFrom, modelEndpoint } from '../../agent/agent-settings.js';
import type { OpenedEnvironment } from '../../agent/agent-run.js';
import type { Endpoint, ServedModel } from '../../agent/openai.js';
import type { RetrySample } from '../../agent/retry.js';
import { isCompleted, type EpisodeRecord } from '../../core/episode.js';
import { UsageError } from '../../core/errors.js';
import type { NamedEpisode } from '../../store/episode-refs.js';
import type { Workspace } from '../../store/index.js';
import { formatArgs } from '../format.js';
import type { RunTracker } from '../launch.js';
import type { LiveSource } from '../live/types.js';
import type { DecisionService } from '../services.js';
import type { DecisionPreparation, DecisionRequest, SampleView } from '../state/decision.js';
import { prefillWatch, readWatchSettings } from '../watch/settings.js';
import type { WorkspaceSession } from '../workspace-session.js';

/**
 * `settingsFile`: the "Watch a model" form's last settings, the prefill when the record names no
 * endpoint; `track`: counts a fork among the runs the app waits for before it closes the workspace;
 * `env`: where the key's variable is read.
 */
export function decisionService(
  session: WorkspaceSession,
  settingsFile: string,
  track: RunTracker['track'],
  env: NodeJS.ProcessEnv = process.env,
): DecisionService {
  const episode = async (id: string): Promise<{ ws: Workspace; named: NamedEpisode }> => {
    const [ws, { workspaceEpisode }] = await Promise.all([session.open(), import('../../store/episode-refs.js')]);
    return { ws, named: await workspaceEpisode(ws, id) };
  };
  const endpointOf = (request: DecisionRequest): Endpoint =>
    modelEndpoint({
      model: request.model,
      baseUrl: request.baseUrl,
      apiKey: apiKeyFrom(request.apiKeyEnv, env),
      apiKeyEnv: request.apiKeyEnv || undefined,
      ...(request.temperature !== null ? { temperature: request.temperature } : {}),
    });
  /** The model must be listed at /v1/models (docs/endpoints.md): a wrong name fails in a second, naming the field. */
  const served = async (endpoint: Endpoint): Promise<{ ok: true; served: ServedModel } | { ok: false; field: 'model' | null; message: string }> => {
    try {
      const { checkModel } = await import('../../agent/openai.js');
      return { ok: true, served: await checkModel(endpoint.baseUrl, endpoint.model, endpoint) };
    } catch (err) {
      return { ok: false, field: err instanceof UsageError ? 'model' : null, message: oneLine(err) };
    }
  };

  return {
    isSet: (name) => !apiKeyEnvProblem(name) && apiKeyFrom(name, env) !== undefined,

    async prepare(kind, episodeId, turn) {
      try {
        const { ws, named } = await episode(episodeId);
        const { record } = named;
        const outcome = isCompleted(record) ? record.outcome : null;
        const point = (p: readonly [number, number] | null | undefined) => (p ? { lat: p[0], lon: p[1] } : null);
        const preparation: DecisionPreparation = {
          values: prefill(record, prefillWatch(env, readWatchSettings(settingsFile))),
          truth: point(outcome?.truth),
          guess: point(outcome?.guess),
        };
        if (kind === 'fork') {
          const { planFork } = await import('../../agent/fork.js');
          planFork(named, turn);
          return preparation;
        }
        const { rebuildRequest } = await import('../../agent/retry.js');
        const request = rebuildRequest(ws, named, turn);
        return {
          ...preparation,
          check: { sha256: request.sha256, recordedSha256: request.recordedSha256, differences: request.differences },
          recorded: sampleView(request.recordedReply),
        };
      } catch (err) {
        throw new Error(oneLine(err), { cause: err });
      }
    },

    async retry(episodeId, turn, request, onSample, signal) {
      try {
        const endpoint = endpointOf(request);
        const check = await served(endpoint);
        if (!check.ok) throw new Error(check.message);
        signal.throwIfAborted();
        const [{ ws, named }, { rebuildRequest, retryTurn }] = await Promise.all([episode(episodeId), import('../../agent/retry.js')]);
        const rebuilt = rebuildRequest(ws, named, turn, request.temperature !== null ? { temperature: request.temperature } : {});
        const result = await retryTurn({
          request: rebuilt,
          endpoint,
          samples: request.samples,
          truth: rebuilt.truth,
          signal,
          onSample: (index, sample) => onSample(index, sampleView(sample)),
        });
        return { samples: result.samples.map(sampleView), summary: result.summary };
      } catch (err) {
        throw new Error(oneLine(err), { cause: err });
      }
    },

    async fork(episodeId, turn, who) {
      let named: NamedEpisode;
      let ws: Workspace;
      let plan: import('../../agent/fork.js').ForkPlan;
      try {
        ({ ws, named } = await episode(episodeId));
        plan = (await import('../../agent/fork.js')).planFork(named, turn);
      } catch (err) {
        return { ok: false, field: null, message: oneLine(err) };
      }
      if (who === 'person') return { ok: true, source: forkSource({ ws, plan, track, person: true }) };
      const endpoint = endpointOf(who);
      const check = await served(endpoint);
      if (!check.ok) return check;
      return { ok: true, source: forkSource({ ws, plan, track, person: false, endpoint, served: check.served }) };
    },
  };
}

/** The record's model and endpoint, else the last "Watch a model" settings; the key's variable only for the same endpoint. */
function prefill(record: EpisodeRecord, watch: { model: string; baseUrl: string; apiKeyEnv: string }): DecisionPreparation['values'] {
  const model = (('model' in record ? record.model : null) ?? {}) as Record<string, unknown>;
  const recordedModel = typeof model.model === 'string' && model.model ? model.model : null;
  const recordedUrl = typeof model.base_url === 'string' && model.base_url ? model.base_url : null;
  const baseUrl = recordedUrl ?? watch.baseUrl;
  const temperature = typeof model.temperature === 'number' ? String(model.temperature) : '';
  // A key is sent only where it was meant to go: the watch form's variable goes to the watch form's endpoint.
  const apiKeyEnv = sameUrl(baseUrl, watch.baseUrl) ? watch.apiKeyEnv : '';
  return { model: recordedModel ?? watch.model, baseUrl, apiKeyEnv, temperature };
}

function sameUrl(a: string, b: string): boolean {
  return a.replace(/\/+$/, '') === b.replace(/\/+$/, '');
}

interface ForkSourceOptions {
  ws: Workspace;
  plan: import('../../agent/fork.js').ForkPlan;
  track: RunTracker['track'];
  person: boolean;
  endpoint?: Endpoint;
  served?: ServedModel;
}

/** Live's source for a fork: the recorded task on the environment it was played on, the fork service as the runner. */
function forkSource(options: ForkSourceOptions): LiveSource {
  const { ws, plan, person } = options;
  const recorded = (plan.record.config ?? {}) as Record<string, unknown>;
  let environment: OpenedEnvironment | undefined;
  let disposed: Promise<void> | undefined;
  return {
    driver: person ? 'person' : 'model',
    who: person ? 'you' : (options.endpoint?.model ?? 'model'),
    async prepare() {
      const { prepareFork } = await import('../../agent/fork-session.js');
      // The environment the original was played on: a remote server by its URL, else the embedded one.
      const location = typeof recorded.base_url === 'string' && /^https?:/.test(recorded.base_url) ? recorded.base_url : undefined;
      const session = await prepareFork(ws, plan, { envUrl: location, model: person ? null : { endpoint: options.endpoint!, served: options.served } });
      environment = session.environment;
      const { config } = session;
      return {
        client: environment.client,
        policy: session.next,
        split: environment.split,
        index: environment.index,
        task: environment.task,
        // The fork plays to the original's budget (src/agent/fork.ts), whoever plays on.
        maxTurns: typeof config.max_turns === 'number' ? config.max_turns : DEFAULT_MAX_TURNS,
        config,
        sink: session.sink,
      };
    },
    run: (run) =>
      options.track(
        import('../../agent/fork.js').then(({ forkEpisode }) =>
          forkEpisode({ ws, plan, next: run.policy, client: run.client, sink: run.sink, config: run.config, onEvent: run.onEvent, signal: run.signal }),
        ),
      ),
    dispose() {
      disposed ??= environment?.close() ?? Promise.resolve();
      return disposed;
    },
  };
}

/** A reply as the panel shows it. */
export function sampleView(sample: RetrySample): SampleView {
  const tokens = sample.tokens?.output ?? sample.tokens?.total ?? null;
  const error =
    sample.status === 'provider_error'
      ? `no reply: ${sample.error ?? 'the endpoint gave none'}`
      : sample.status === 'unparseable'
        ? `unusable reply: ${sample.error ?? 'no action in it'}`
        : null;
  return {
    action: sample.action,
    arguments: sample.arguments ? formatArgs(sample.arguments) : '',
    reasoning: sample.reasoning ?? (sample.reply?.trim() || null),
    tokens,
    latencyS: sample.latency_s,
    guess: sample.guess,
    distanceKm: sample.distance_km,
    error,
  };
}

/** An error as the panel's one line: its message's first line. */
function oneLine(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.split('\n')[0]!.trim() || 'failed without a message';
}
