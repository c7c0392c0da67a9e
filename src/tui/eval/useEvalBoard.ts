/**
 * The Eval board's data, kept current while the screen is in view: the workspace is read again a
 * second after each read (a running sweep rewrites its sweep.json at most once a second), and the
 * report is computed after the frame that a key or a read produced, never inside it.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { EvalBoardService, EvalBoardSnapshot } from '../services.js';
import { boardReport, type BoardEpisode, type BoardReport } from './board.js';

/** A sweep's writer rewrites sweep.json at most this often. */
const POLL_MS = 1000;

export interface EvalBoardData {
  snapshot: EvalBoardSnapshot | null;
  /** While new episodes are read: how many of how many. */
  progress: { read: number; of: number } | null;
  /** Why the last read failed (the board keeps what it had), or null. */
  error: string | null;
}

export function useEvalBoardData(service: EvalBoardService | undefined, active: boolean): { data: EvalBoardData; reload: () => void } {
  const [data, setData] = useState<EvalBoardData>({ snapshot: null, progress: null, error: null });
  const reloadNext = useRef(false);
  const [reloads, setReloads] = useState(0);

  useEffect(() => {
    if (!service || !active) return;
    let current = true;
    let timer: NodeJS.Timeout | undefined;
    const poll = () => {
      const reload = reloadNext.current;
      reloadNext.current = false;
      service
        .read((read, of) => current && setData((d) => ({ ...d, progress: { read, of } })), reload)
        .then(
          (snapshot) => current && setData({ snapshot, progress: null, error: null }),
          (err: Error) => current && setData((d) => ({ ...d, progress: null, error: err.message })),
        )
        .finally(() => {
          if (current) timer = setTimeout(poll, POLL_MS);
        });
    };
    poll();
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [service, active, reloads]);

  const reload = useCallback(() => {
    reloadNext.current = true;
    setReloads((n) => n + 1);
  }, []);
  return { data, reload };
}

interface ReportInputs {
  episodes: readonly BoardEpisode[];
  excludedRuns: ReadonlySet<string>;
  baseline: string | null;
}

/**
 * The report of the inputs, computed in a task of its own after they change: the frame of the key
 * that changed them is drawn first. `stale` while the report shown is of earlier inputs.
 */
export function useBoardReport(inputs: ReportInputs | null): { report: BoardReport | null; stale: boolean } {
  const [computed, setComputed] = useState<{ inputs: ReportInputs; report: BoardReport } | null>(null);
  const episodes = inputs?.episodes;
  const excludedRuns = inputs?.excludedRuns;
  const baseline = inputs?.baseline ?? null;
  useEffect(() => {
    if (!episodes || !excludedRuns) return;
    const timer = setTimeout(() => setComputed({ inputs: { episodes, excludedRuns, baseline }, report: boardReport(episodes, excludedRuns, baseline) }));
    return () => clearTimeout(timer);
  }, [episodes, excludedRuns, baseline]);
  const stale =
    !computed || !inputs || computed.inputs.episodes !== episodes || computed.inputs.excludedRuns !== excludedRuns || computed.inputs.baseline !== baseline;
  return { report: computed?.report ?? null, stale };
}
