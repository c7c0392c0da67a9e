/**
 * The Splits screen's port for real: pools from the workspace's task sets or a task file, and the
 * write through the same `writeSplits` as `geolab splits build`. The store and the split core load
 * on first use, so Home's first frame does not wait for them.
 */
import { isAbsolute, resolve } from 'node:path';
import type { SplitsService } from '../services.js';
import type { WorkspaceSession } from '../workspace-session.js';

/** `cwd`: where a typed relative path (a pool file, the output directory) starts. */
export function splitsService(session: WorkspaceSession, cwd: string = process.cwd()): SplitsService {
  const at = (path: string) => (isAbsolute(path) ? path : resolve(cwd, path));
  return {
    async taskSets() {
      const [ws, { listTaskSets }] = await Promise.all([session.open(), import('../../store/task-sets.js')]);
      return listTaskSets(ws.db).map((s) => ({ name: s.name, tasks: s.n_tasks }));
    },
    async load(source) {
      if ('taskSet' in source) {
        const [ws, { getTaskSet, readTasks }] = await Promise.all([session.open(), import('../../store/task-sets.js')]);
        const tasks = readTasks(ws.db, source.taskSet);
        const set = getTaskSet(ws.db, source.taskSet)!;
        return { label: source.taskSet, pool: { tasks, path: set.source_path, sha256: set.source_sha256 } };
      }
      const file = at(source.file);
      const [{ loadTasksStrict }, { fileSha256 }] = await Promise.all([import('../../tasks/load.js'), import('../../files.js')]);
      const { tasks } = await loadTasksStrict(file);
      return { label: file, pool: { tasks, path: file, sha256: await fileSha256(file, 'pool') } };
    },
    async write(pool, result, options, target) {
      const [ws, { writeSplits }] = await Promise.all([session.open(), import('../../splits/write.js')]);
      return writeSplits(ws, pool, result, options, { outDir: at(target.outDir), name: target.name, replace: target.replace });
    },
    async taken(target) {
      const [ws, { describeTaken, takenTargets }] = await Promise.all([session.open(), import('../../splits/write.js')]);
      return describeTaken(takenTargets(ws, { outDir: at(target.outDir), name: target.name }));
    },
  };
}
