/** What every command's options share: the program-wide ones, and the parsers of numeric flags. */
import { InvalidArgumentError, type Command } from 'commander';

export interface GlobalOptions {
  workspace?: string;
  json?: boolean;
  images?: string;
}

/** Merges the program-wide options into a subcommand's own, so `--json` works before or after it. */
export function withGlobals<T extends object>(opts: T, cmd: Command): T & GlobalOptions {
  const globals = cmd.optsWithGlobals() as Omit<GlobalOptions, 'workspace'> & { workspace?: string | true };
  // A bare --workspace (`eval report --workspace`) names the default workspace.
  return { ...globals, workspace: globals.workspace === true ? undefined : globals.workspace, ...opts };
}

export function integer(flag: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError(`${flag} expects an integer, got "${value}"`);
    return parsed;
  };
}

export function number(flag: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (value.trim() === '' || !Number.isFinite(parsed)) throw new InvalidArgumentError(`${flag} expects a number, got "${value}"`);
    return parsed;
  };
}
