/** The workspace behind Home, Episodes and the Player, opened once by the container after the first frame. */
import { createContext, useContext } from 'react';
import type { Loading } from '../hooks/useWorkspace.js';
import type { WorkspaceView } from '../services.js';

/** null: the app was given no workspace (a Live screen on its own). */
export const WorkspaceContext = createContext<Loading<WorkspaceView> | null | undefined>(undefined);

export function useWorkspaceState(): Loading<WorkspaceView> | null {
  const workspace = useContext(WorkspaceContext);
  if (workspace === undefined) throw new Error('useWorkspaceState must be used inside the AppContainer');
  return workspace;
}
