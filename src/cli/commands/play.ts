/** `geolab play`: a person plays a task in the Live screen. */
import { UsageError } from '../../core/errors.js';
import type { GlobalOptions } from '../main.js';
import { canDrawTui } from '../tty.js';

export async function playCommand(opts: GlobalOptions & { split?: string; task?: number; env?: string }): Promise<void> {
  if (!canDrawTui()) throw new UsageError('`geolab play` needs a terminal (stdin and stdout a TTY); for scripts use `geolab agent --headless`');
  const { openPlay } = await import('../../tui/entry.js');
  await openPlay({ workspace: opts.workspace, envUrl: opts.env, split: opts.split, task: opts.task });
}
