/**
 * Where the "Watch a model" form starts: GEOLAB_MODEL, GEOLAB_BASE_URL and GEOLAB_API_KEY_ENV when
 * set, else what was last started from this workspace, else the defaults. The last settings are a
 * small JSON file in the workspace (no table: nothing queries them), written whole or not at all.
 * They hold no secret: only the NAME of the variable with the key.
 */
import { readFileSync } from 'node:fs';
import { DEFAULT_BASE_URL, DEFAULT_PROTOCOL, DEFAULT_SPLIT, PROTOCOLS } from '../../agent/agent-settings.js';
import { isRecord } from '../../core/values.js';
import { writeFileAtomic } from '../../files.js';
import type { WatchSettings } from '../state/watch-form.js';

export const WATCH_DEFAULTS: WatchSettings = {
  model: '',
  baseUrl: DEFAULT_BASE_URL,
  apiKeyEnv: '',
  protocol: DEFAULT_PROTOCOL,
  split: DEFAULT_SPLIT,
};

/** The form's first values: each from the environment, else the saved settings, else the default. */
export function prefillWatch(env: NodeJS.ProcessEnv, saved: Partial<WatchSettings>): WatchSettings {
  const fromEnv: Partial<WatchSettings> = {
    ...(env.GEOLAB_MODEL ? { model: env.GEOLAB_MODEL } : {}),
    ...(env.GEOLAB_BASE_URL ? { baseUrl: env.GEOLAB_BASE_URL } : {}),
    ...(env.GEOLAB_API_KEY_ENV ? { apiKeyEnv: env.GEOLAB_API_KEY_ENV } : {}),
  };
  return { ...WATCH_DEFAULTS, ...saved, ...fromEnv };
}

/** The settings saved last; a missing or unreadable file is no settings (the form still opens). */
export function readWatchSettings(file: string): Partial<WatchSettings> {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return {};
  }
  if (!isRecord(data)) return {};
  const text = (key: keyof WatchSettings) => (typeof data[key] === 'string' ? { [key]: data[key] } : {});
  const protocol = PROTOCOLS.find((p) => p === data.protocol);
  return { ...text('model'), ...text('baseUrl'), ...text('apiKeyEnv'), ...text('split'), ...(protocol ? { protocol } : {}) };
}

/** Written to a temp file renamed into place, so a crash never leaves half a file. */
export function saveWatchSettings(file: string, settings: WatchSettings): void {
  const { model, baseUrl, apiKeyEnv, protocol, split } = settings;
  writeFileAtomic(file, JSON.stringify({ model, baseUrl, apiKeyEnv, protocol, split }, null, 2) + '\n');
}
