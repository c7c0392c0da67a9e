/** The workspace's recorded episodes as prompts, one episode in memory at a time, images from its store. */
import { InputError } from '../../core/errors.js';
import type { Workspace } from '../../store/index.js';
import type { AuditPrompt } from '../types.js';
import { episodePrompts } from './episodes.js';
import { MessageError } from './messages.js';

export const WORKSPACE_SOURCE = 'workspace';

export async function* readWorkspaceEpisodes(ws: Workspace): AsyncGenerator<AuditPrompt> {
  const [{ episodeIds, episodeTaskVersion, loadEpisode }, { readImage }, { getTaskSet }] = await Promise.all([
    import('../../store/episodes.js'),
    import('../../store/images.js'),
    import('../../store/task-sets.js'),
  ]);
  const store = (sha256: string) => readImage(ws, sha256) ?? null;
  for (const id of episodeIds(ws.db)) {
    const record = loadEpisode(ws.db, id);
    if (!record) continue;
    try {
      // An episode of a task set is audited against the version of the set it was played on.
      const { split, index } = record.task;
      const task = getTaskSet(ws.db, split) ? { split, index, version: episodeTaskVersion(ws.db, id) } : undefined;
      yield* episodePrompts(record, { source: WORKSPACE_SOURCE, files: null, store, ...(task ? { task } : {}) });
    } catch (err) {
      if (err instanceof MessageError) throw new InputError(`episode ${id} in ${ws.dir}: ${err.message}`, { field: err.field });
      throw err;
    }
  }
}
