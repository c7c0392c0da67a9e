/**
 * Workspace settings (`geolab config`): a few named values kept in the workspace database. Only
 * known keys are accepted, and none of them holds a secret (keys stay in environment variables).
 */
import { UsageError } from '../core/errors.js';
import type { Db } from './db.js';

export const SETTINGS = {
  panos: 'panorama cache directory for task sets imported without --panos',
} as const;

export type SettingKey = keyof typeof SETTINGS;

export function settingKey(key: string): SettingKey {
  if (!Object.hasOwn(SETTINGS, key)) {
    throw new UsageError(`unknown setting "${key}": expected one of ${Object.keys(SETTINGS).join(', ')}`);
  }
  return key as SettingKey;
}

export function getSetting(db: Db, key: SettingKey): string | undefined {
  return (db.prepare('SELECT value FROM settings WHERE key = ?').get(key) as { value: string } | undefined)?.value;
}

export function setSetting(db: Db, key: SettingKey, value: string): void {
  db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
}

export function unsetSetting(db: Db, key: SettingKey): boolean {
  return db.prepare('DELETE FROM settings WHERE key = ?').run(key).changes > 0;
}

export function listSettings(db: Db): Record<string, string> {
  const rows = db.prepare('SELECT key, value FROM settings ORDER BY key').all() as { key: string; value: string }[];
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

/**
 * Where a task set's panoramas are (docs/protocol.md): a command's `--panos`, else the set's own cache,
 * else the workspace's `panos` setting, else the workspace's panos/.
 */
export function panoramaCache(db: Db, workspacePanos: string, flag?: string, setDir?: string | null): string {
  return flag ?? setDir ?? getSetting(db, 'panos') ?? workspacePanos;
}
