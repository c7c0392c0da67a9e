/** One workspace per TUI session: opened on first use (after the first frame), closed when the app ends. */
import type { Workspace } from '../store/index.js';
import type { WorkspaceView } from './services.js';

export interface WorkspaceSession {
  open(): Promise<Workspace>;
  view(): Promise<WorkspaceView>;
  close(): Promise<void>;
}

export function workspaceSession(dir: string | undefined): WorkspaceSession {
  let opened: Promise<Workspace> | undefined;
  const open = () => (opened ??= import('../store/index.js').then(({ openWorkspace }) => openWorkspace(dir)));
  return {
    open,
    view: async () => {
      const [ws, { workspaceView }] = await Promise.all([open(), import('./workspace-view.js')]);
      return workspaceView(ws);
    },
    close: async () => {
      const ws = await opened?.catch(() => undefined);
      ws?.close();
    },
  };
}
