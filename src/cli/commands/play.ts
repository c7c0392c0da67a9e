/** `geolab play`: a person plays a task in the Live screen. */
import { UsageError } from '../../core/errors.js';
import { checkedPanosDir } from '../../files.js';
import type { GlobalOptions } from '../main.js';
import { canDrawTui } from '../tty.js';

export async function playCommand(opts: GlobalOptions & { split?: string; task?: number; env?: string; panos?: string; fetch?: boolean }): Promise<void> {
  if (!canDrawTui()) throw new UsageError('`geolab play` needs a terminal (stdin and stdout a TTY); for scripts use `geolab agent --headless`');
  const panos = opts.panos === undefined ? undefined : checkedPanosDir(opts.panos, '--panos');
  // The TUI's modules load meanwhile, so the check below costs the first frame little.
  const tui = import('../../tui/entry.js');
  tui.catch(() => {}); // awaited below, unless the check fails first
  let { split, task } = opts;
  if (!opts.env) {
    // The task is chosen and its start panorama checked before the TUI opens: a missing one is a
    // line and exit 2, not a broken screen.
    const [{ openWorkspace }, { chooseEmbeddedTask }] = await Promise.all([import('../../store/index.js'), import('../../env/task-splits.js')]);
    const ws = await openWorkspace(opts.workspace);
    try {
      const chosen = await chooseEmbeddedTask({ split: split ?? null, index: task ?? null, panos, fetch: opts.fetch }, ws);
      split = chosen.split;
      task = chosen.index;
    } finally {
      ws.close();
    }
  }
  const { openPlay } = await tui;
  await openPlay({ workspace: opts.workspace, envUrl: opts.env, split, task, panos, fetch: opts.fetch });
}
