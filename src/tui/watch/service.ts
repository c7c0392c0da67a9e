/**
 * "Watch a model" for real: the form's prefill, the endpoint check (docs/endpoints.md: the model must be
 * listed at /v1/models), and the Live screen's source, which builds the episode with the same
 * `openAgentRun` as `geolab agent`, so it is recorded the same way. The environment starts in
 * `prepare` (after the Live screen is up) and goes in `dispose`.
 */
import { UsageError } from '../../core/errors.js';
import type { AgentRun } from '../../agent/agent-run.js';
import { apiKeyEnvProblem, apiKeyFrom, modelEndpoint, modelSettings, type AgentSettings } from '../../agent/agent-settings.js';
import type { ServedModel } from '../../agent/openai.js';
import type { LiveSource } from '../live/types.js';
import type { WatchService } from '../services.js';
import type { WorkspaceSession } from '../workspace-session.js';
import { prefillWatch, readWatchSettings, saveWatchSettings } from './settings.js';

/** `settingsFile`: the workspace's saved form; `env`: where the GEOLAB_* prefill and the key are read. */
export function watchService(session: WorkspaceSession, settingsFile: string, env: NodeJS.ProcessEnv = process.env): WatchService {
  return {
    prefill: async () => prefillWatch(env, readWatchSettings(settingsFile)),
    isSet: (name) => !apiKeyEnvProblem(name) && apiKeyFrom(name, env) !== undefined,
    async splits() {
      const [workspace, { workspaceSplits }] = await Promise.all([session.open(), import('../../env/task-splits.js')]);
      return [...(await workspaceSplits(workspace)).sizes.keys()];
    },
    async start(request) {
      const endpoint = modelEndpoint({
        model: request.model,
        baseUrl: request.baseUrl,
        apiKey: apiKeyFrom(request.apiKeyEnv, env),
        apiKeyEnv: request.apiKeyEnv || undefined,
      });
      let served: ServedModel;
      try {
        const { checkModel } = await import('../../agent/openai.js');
        served = await checkModel(endpoint.baseUrl, endpoint.model, endpoint);
      } catch (err) {
        // A model the endpoint does not list is the model field's fault; an endpoint that cannot be
        // reached or refuses (a wrong key) is not one field's. The messages are already redacted.
        return { ok: false, field: err instanceof UsageError ? 'model' : null, message: (err as Error).message };
      }
      const { embeddedTaskProblem } = await import('../../agent/agent-run.js');
      const problem = await embeddedTaskProblem(await session.open(), request.split, request.task);
      if (problem) return { ok: false, field: problem.setting, message: problem.message };

      const settings = modelSettings(endpoint, { protocol: request.protocol, split: request.split, index: request.task });
      let notice: string | undefined;
      try {
        saveWatchSettings(settingsFile, request);
      } catch (err) {
        notice = `These settings could not be saved for next time: ${(err as Error).message}`;
      }
      return { ok: true, source: watchSource(session, settings, served), notice };
    },
  };
}

function watchSource(session: WorkspaceSession, settings: AgentSettings, served: ServedModel): LiveSource {
  let opened: AgentRun | undefined;
  let disposed: Promise<void> | undefined;
  return {
    driver: 'model',
    who: settings.endpoint?.model ?? settings.policy,
    async prepare() {
      const [workspace, { openAgentRun }] = await Promise.all([session.open(), import('../../agent/agent-run.js')]);
      opened = await openAgentRun(settings, { workspace, served });
      return opened.run;
    },
    dispose() {
      disposed ??= opened?.close() ?? Promise.resolve();
      return disposed;
    },
  };
}
