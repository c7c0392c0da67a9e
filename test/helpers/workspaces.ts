/** Empty workspaces (no demo) in temp dirs, closed after each test of the file that asks for them. */
import { afterEach } from 'vitest';
import { openWorkspace, type Workspace } from '../../src/store/index.js';
import { tempDir } from './fixtures.js';

export function tempWorkspaces(): () => Promise<Workspace> {
  const open: Workspace[] = [];
  afterEach(() => open.splice(0).forEach((ws) => ws.close()));
  return async () => {
    const ws = await openWorkspace(tempDir(), { seedDemo: false });
    open.push(ws);
    return ws;
  };
}
