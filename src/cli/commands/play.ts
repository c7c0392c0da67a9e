/** `geolab play`: a person plays a task in the Live screen. */
import { UsageError } from '../../core/errors.js';
import { checkedPanosDir } from '../../files.js';
import type { GlobalOptions } from '../options.js';
import { canDrawTui } from '../tty.js';

export async function playCommand(opts: GlobalOptions & { split?: string; task?: number; env?: string; panos?: string; fetch?: boolean }): Promise<void> {
  if (!canDrawTui()) throw new UsageError('`geolab play` needs a terminal (stdin and stdout a TTY); for scripts use `geolab agent --headless`');
  const panos = opts.panos === undefined ? undefined : checkedPanosDir(opts.panos, '--panos');
  // The TUI's modules load meanwhile, so the check below costs the first frame little.
  const tui = import('../../tui/entry.js');
  tui.catch(() => {}); // awaited below, unless the check fails first
  // The task is chosen and checked before the TUI opens (a split not served, a task out of range, a
  // missing start panorama, a remote environment that does not answer): a line and exit 2 or 3, not
  // a broken screen. The TUI then plays exactly that task.
  const { openWorkspace } = await import('../../store/index.js');
  const ws = await openWorkspace(opts.workspace);
  let split: string;
  let task: number;
  try {
    if (opts.env) {
      const { openEnvironment } = await import('../../agent/agent-run.js');
      const remote = await openEnvironment({ envUrl: opts.env, split: opts.split ?? null, index: opts.task ?? null }, ws);
      await remote.close();
      ({ split, index: task } = remote);
    } else {
      const { chooseEmbeddedTask } = await import('../../env/task-splits.js');
      ({ split, index: task } = await chooseEmbeddedTask({ split: opts.split ?? null, index: opts.task ?? null, panos, fetch: opts.fetch }, ws));
    }
  } finally {
    ws.close();
  }
  const { openPlay } = await tui;
  await openPlay({ workspace: opts.workspace, envUrl: opts.env, split, task, panos, fetch: opts.fetch });
}
