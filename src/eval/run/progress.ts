/**
 * A sweep's progress: the counts per model, the status file the board reads (sweep.json, or a
 * shard's own), and the text the command prints of them (the summary, an episode's line, the live
 * line on a terminal). Prints nothing itself: whoever runs the sweep is told through callbacks.
 */
import { isCompleted, type EpisodeRecord, type Turn } from '../../core/episode.js';
import { shardStatusFile, SWEEP_FILE, type SweepModelProgress, type SweepState } from '../sweep-status.js';
import type { Shard, WorkItem } from './plan.js';
import type { SweepArm } from './sweep.js';
import { WINDOW_MS, type Throttle } from './throttle.js';
import { StatusWriter } from './tree.js';

interface Counts {
  done: number;
  failed: number;
  aborted: number;
  total: number;
  /** Recorded by this process (for the rate). */
  now: number;
  retries: number;
  providerErrors: number;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

export class SweepProgress {
  private readonly startedMs = performance.now();
  private readonly startedAt = new Date().toISOString();
  private readonly counts = new Map<string, Counts>();
  private readonly status: StatusWriter;
  /** Between records too: what is in flight and the machine's figures move on their own. */
  private readonly ticker: NodeJS.Timeout;

  constructor(
    out: string,
    private readonly runId: string,
    arms: readonly SweepArm[],
    planned: readonly WorkItem[],
    work: readonly WorkItem[],
    private readonly throttle: Throttle,
    shard: Shard | undefined,
    /** Each tick (and record): the live line, for a terminal to redraw. */
    private readonly onTick: (line: string) => void = () => {},
  ) {
    // Shards of one sweep share its folder: each keeps its own status file, read together (docs/sharding.md).
    this.status = new StatusWriter(out, shard ? shardStatusFile(shard.index) : SWEEP_FILE);
    for (const arm of arms) {
      const total = planned.filter((i) => i.model === arm.spec.name).length;
      const left = work.filter((i) => i.model === arm.spec.name).length;
      this.counts.set(arm.spec.name, { done: total - left, failed: 0, aborted: 0, total, now: 0, retries: 0, providerErrors: 0 });
    }
    this.write('running');
    this.ticker = setInterval(() => {
      this.onTick(this.line());
      this.write('running');
    }, WINDOW_MS);
    this.ticker.unref();
  }

  /** Counts the record; returns its line (`  [3/8] alpha task 2 sample 1: 412 km`). */
  recorded(item: WorkItem, record: EpisodeRecord): string {
    const c = this.counts.get(item.model)!;
    if (isCompleted(record)) c.done++;
    else if (record.failure === 'aborted') c.aborted++;
    else c.failed++;
    c.now++;
    this.onTick(this.line());
    this.write('running');
    const what = !isCompleted(record) && record.failure === 'aborted' ? 'aborted' : isCompleted(record) ? (record.outcome.distance_km === null || record.outcome.distance_km === undefined ? 'no guess' : `${record.outcome.distance_km.toFixed(0)} km`) : `failed: ${String(record.error).slice(0, 80)}`;
    return `  [${c.done + c.failed + c.aborted}/${c.total}] ${item.model} task ${item.index} sample ${item.sample}: ${what}`;
  }

  /** What an episode cost, counted whether its record was kept or it was played again elsewhere. */
  played(item: WorkItem, record: EpisodeRecord, unrecordedRetries = 0): void {
    const c = this.counts.get(item.model)!;
    c.retries += unrecordedRetries;
    // A failed record's turns are loosely typed (its schema keeps whatever the harness wrote).
    const turns = (isCompleted(record) ? record.turns : Array.isArray(record.turns) ? record.turns : []) as Turn[];
    for (const turn of turns) {
      if (turn.turn === 0) continue;
      const attempts = turn.model?.attempts;
      if (typeof attempts === 'number' && attempts > 1) c.retries += attempts - 1;
      if (turn.status === 'provider_error') c.providerErrors++;
    }
  }

  failed(): number {
    return [...this.counts.values()].reduce((n, c) => n + c.failed, 0);
  }

  models(): SweepModelProgress[] {
    const minutes = (performance.now() - this.startedMs) / 60_000;
    return [...this.counts].map(([name, c]) => {
      const perMin = minutes > 0 ? c.now / minutes : 0;
      const left = c.total - c.done - c.failed - c.aborted;
      return {
        name,
        done: c.done,
        failed: c.failed,
        aborted: c.aborted,
        total: c.total,
        retries: c.retries,
        provider_errors: c.providerErrors,
        per_min: Number(perMin.toFixed(2)),
        eta_s: perMin > 0 ? Math.round((left / perMin) * 60) : left === 0 ? 0 : null,
      };
    });
  }

  finish(state: SweepState): void {
    clearInterval(this.ticker);
    this.write(state);
    this.status.flush();
  }

  summary(): string[] {
    // Every count, zeros included: an endpoint that answered nothing must not read like a clean sweep.
    return this.models().map(
      (m) =>
        `${m.name}: ${m.done}/${m.total} recorded, ${m.failed} failed, ${m.aborted} aborted, ` +
        `${m.retries} ${m.retries === 1 ? 'retry' : 'retries'}, ${m.provider_errors} provider-error turn${m.provider_errors === 1 ? '' : 's'}`,
    );
  }

  /** How many were in flight and whether geolab itself held the sweep back, for the end of the run. */
  machineSummary(): string {
    const t = this.throttle.state();
    const how = t.adaptive ? 'following the machine' : 'fixed by --concurrency';
    const bound = t.windows === 0 ? 'too short to measure the CPU' : `CPU-bound in ${t.boundWindows} of ${t.windows} ${WINDOW_MS / 1000}-second windows`;
    return `episodes in flight: limit ${t.limit} (${how}); ${bound}`;
  }

  private line(): string {
    const t = this.throttle.state();
    const models = this.models()
      .map((m) => `${m.name} ${m.done + m.failed + (m.aborted ?? 0)}/${m.total} ${m.per_min.toFixed(1)}/min eta ${m.eta_s === null ? '-' : `${Math.ceil(m.eta_s / 60)}m`}`)
      .join(' · ');
    // The CPU-bound warning says more in flight would not help: geolab, not the endpoint, is the bottleneck.
    return `${models} · ${t.inFlight}/${t.limit} in flight${t.cpuBound ? ' · CPU-bound: geolab is the bottleneck' : ''}`;
  }

  private write(status: SweepState): void {
    const t = this.throttle.state();
    this.status.update({
      run_id: this.runId,
      pid: process.pid,
      status,
      started_at: this.startedAt,
      updated_at: new Date().toISOString(),
      models: this.models(),
      machine: { in_flight: t.inFlight, limit: t.limit, adaptive: t.adaptive, cpu: t.cpu === null ? null : round2(t.cpu), event_loop: t.elu === null ? null : round2(t.elu), cpu_bound: t.cpuBound },
    });
  }
}
