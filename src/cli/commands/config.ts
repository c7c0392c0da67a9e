/** `geolab config set | get | unset | list`: workspace settings (no secrets: keys stay in variables). */
import { EXIT } from '../../core/errors.js';
import { checkedPanosDir } from '../../files.js';
import type { Workspace } from '../../store/index.js';
import type { GlobalOptions } from '../options.js';
import { printJson, printLine } from '../output.js';

async function withWorkspace<T>(opts: GlobalOptions, use: (ws: Workspace, settings: typeof import('../../store/settings.js')) => T): Promise<T> {
  const [{ openWorkspace }, settings] = await Promise.all([import('../../store/index.js'), import('../../store/settings.js')]);
  const ws = await openWorkspace(opts.workspace);
  try {
    return use(ws, settings);
  } finally {
    ws.close();
  }
}

export async function setCommand(key: string, value: string, opts: GlobalOptions): Promise<void> {
  await withWorkspace(opts, (ws, s) => {
    const name = s.settingKey(key);
    const stored = name === 'panos' ? checkedPanosDir(value, 'panos') : value;
    s.setSetting(ws.db, name, stored);
    if (opts.json) printJson({ [name]: stored });
    else printLine(`${name} = ${stored}`);
  });
}

export async function getCommand(key: string, opts: GlobalOptions): Promise<void> {
  await withWorkspace(opts, (ws, s) => {
    const value = s.getSetting(ws.db, s.settingKey(key));
    if (opts.json) printJson({ [key]: value ?? null });
    else if (value !== undefined) printLine(value);
    if (value === undefined) process.exitCode = EXIT.problemFound;
  });
}

export async function unsetCommand(key: string, opts: GlobalOptions): Promise<void> {
  await withWorkspace(opts, (ws, s) => {
    const removed = s.unsetSetting(ws.db, s.settingKey(key));
    if (opts.json) printJson({ [key]: null, removed });
    else printLine(removed ? `${key} unset` : `${key} was not set`);
  });
}

export async function listCommand(opts: GlobalOptions): Promise<void> {
  await withWorkspace(opts, (ws, s) => {
    const values = s.listSettings(ws.db);
    if (opts.json) return printJson(values);
    for (const key of Object.keys(s.SETTINGS)) printLine(`${key} = ${values[key] ?? '(not set)'}`);
  });
}
