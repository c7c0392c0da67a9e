/**
 * What a training run is doing, read from its output (docs/training.md): the trainer's log (TRL's tqdm bar,
 * its metric dicts printed as Python reprs, tracebacks) and our `{"geolab": ...}` lines, which the
 * trainer writes to both the log and progress.jsonl. Pure and incremental: feed chunks as they
 * arrive (a tqdm bar redraws with \r and no newline), ask for a snapshot at any time.
 *
 * A resumed run appends to the same log: the old process's lines stay above the resume marker, and
 * the steps it logged after its last checkpoint are played again. At each marker the history is cut
 * back to the checkpoint's step, so every step appears once, as the run that counts logged it.
 */
import { StringDecoder } from 'node:string_decoder';
import { isRecord } from '../core/values.js';
import type { TrainerEvent } from './types.js';

export type RunPhase = Extract<TrainerEvent, { geolab: 'phase' }>['phase'] | 'unknown';

export interface MetricPoint {
  step: number;
  /** As TRL named them: loss, reward, reward_std, completions/clipped_ratio, ... */
  values: Record<string, number>;
}

export interface RunWarning {
  id: 'clipped' | 'dead-groups' | 'all-groups-equal' | 'is-collapse' | 'stalled';
  message: string;
}

export interface RunSnapshot {
  phase: RunPhase;
  step: number | null;
  max_steps: number | null;
  eta_s: number | null;
  s_per_it: number | null;
  /** One point per logged step, oldest first. */
  metrics: MetricPoint[];
  checkpoints: { step: number; path: string }[];
  /** The checkpoint the run last resumed from. */
  resumed_from: { step: number; checkpoint: string } | null;
  warnings: RunWarning[];
  /** Set when the process ended without a `done` phase. */
  crashed?: { exit_code: number | null; last_lines: string[] };
}

/**
 * The metrics a watcher shows and the warnings read, in the order they are shown, named as TRL's
 * GRPOTrainer logs them (docs/training.md, "Progress"). kl is logged only when beta is not 0; the
 * sampling/importance_sampling_ratio/* keys only when vLLM's importance-sampling correction is on.
 */
export const KEY_METRICS = [
  'reward',
  'reward_std',
  'loss',
  'completions/mean_length',
  'completions/clipped_ratio',
  'frac_reward_zero_std',
  'entropy',
  'kl',
  'tools/call_frequency',
  'sampling/importance_sampling_ratio/mean',
  'sampling/importance_sampling_ratio/min',
  'sampling/importance_sampling_ratio/max',
] as const;

/** Above this share of truncated completions the reward mostly scores cut-off rollouts. */
export const CLIPPED_RATIO_WARN = 0.1;
/** Above this share of groups with identical rewards most of a step carries no gradient. */
export const ZERO_STD_WARN = 0.5;
/** Below this mean importance-sampling ratio the correction scales the gradient to almost nothing. */
export const IS_RATIO_COLLAPSE = 0.01;
/** Lines kept for a crash report. */
export const LAST_LINES = 40;

export interface SnapshotOptions {
  /** The process is gone: its exit code when known (null when geolab was not its parent). */
  exited?: { code: number | null };
  /** Now, for the stall warning (ms since the epoch). */
  nowMs?: number;
  /** When the log last changed (ms), for the stall warning when the trainer writes no step times. */
  lastOutputMs?: number;
  /** No new step for this long is a stall; default max(10 min, 5 x the step time). */
  stallAfterS?: number;
}

// "  5%|▌     | 12/250 [05:01<1:39:10, 25.0s/it]": the description before the bar (none for the
// Trainer's own), done/total, elapsed<remaining, and the rate either way round.
const TQDM = /^(.*?)(?:\d+%\|[^|]*\|\s*)?(\d+)\/(\d+) \[([\d:]+)<([\d:]+|\?),\s*(\?|[\d.]+)\s*(s\/it|it\/s)/;
const RESUME_TEXT = /resum\w*\b.*?\s(\S*checkpoint[-_](\d+))/i;
const SAVE_TEXT = /saving model checkpoint to (\S*checkpoint-(\d+))/i;
const TRACEBACK = /^Traceback \(most recent call last\):/;
// 'name': 0.5 | 'name': np.float64(0.5) | 'name': tensor(0.5) — TRL's dict repr, value kinds it prints;
// a value printed as a string ('0.5') is read the same.
const DICT_ENTRY = /(['"])((?:(?!\1).)+)\1\s*:\s*(?:[\w.]+\()?\s*['"]?(-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|-?inf|nan)\b/g;

/** The longest unended log line kept whole, and how much of its end is kept past that. */
const MAX_PENDING_CHARS = 1 << 20;
const PENDING_TAIL_CHARS = 64 * 1024;

export class RunLogParser {
  private readonly decoder = new StringDecoder('utf8');
  private pending = '';
  private phase: RunPhase = 'unknown';
  private step: number | null = null;
  private maxSteps: number | null;
  private etaS: number | null = null;
  private sPerIt: number | null = null;
  private readonly points = new Map<number, Record<string, number>>();
  private readonly checkpoints = new Map<number, string>();
  private resumedFrom: RunSnapshot['resumed_from'] = null;
  private lastStepMs: number | null = null;
  /** A step was seen since the last resume marker (the trainer's own line and TRL's text name the same resume). */
  private movedSinceResume = true;
  private tail: string[] = [];
  private traceback: string[] | null = null;

  /** `maxSteps` (the config's) tells the training bar from other bars (loading shards, vLLM's). */
  constructor(options: { maxSteps?: number } = {}) {
    this.maxSteps = options.maxSteps ?? null;
  }

  feed(chunk: string | Buffer): this {
    const text = this.pending + (typeof chunk === 'string' ? chunk : this.decoder.write(chunk));
    const pieces = text.split(/\r\n|\r|\n/);
    this.pending = pieces.pop() ?? '';
    // A line still unended past the cap is no line the parser reads (docs/reliability.md): only its
    // end is kept, so a runaway log holds memory to the cap, not to the line.
    if (this.pending.length > MAX_PENDING_CHARS) this.pending = this.pending.slice(-PENDING_TAIL_CHARS);
    for (const piece of pieces) this.line(piece);
    // A bar being redrawn has no terminator yet; its progress is current, and re-reading it is harmless.
    this.progress(this.pending);
    return this;
  }

  /** The whole text at once (a log read from the start). */
  static parse(text: string, options: { maxSteps?: number } = {}): RunLogParser {
    return new RunLogParser(options).feed(text);
  }

  snapshot(options: SnapshotOptions = {}): RunSnapshot {
    const metrics = [...this.points].sort((a, b) => a[0] - b[0]).map(([step, values]) => ({ step, values }));
    const done = this.phase === 'done';
    const snapshot: RunSnapshot = {
      phase: this.phase,
      step: this.step,
      max_steps: this.maxSteps,
      eta_s: done ? 0 : this.etaS,
      s_per_it: this.sPerIt,
      metrics,
      checkpoints: [...this.checkpoints].sort((a, b) => a[0] - b[0]).map(([step, path]) => ({ step, path })),
      resumed_from: this.resumedFrom,
      warnings: this.warnings(metrics, options),
    };
    if (options.exited && !done) {
      const lines = this.traceback ?? this.tail;
      snapshot.crashed = { exit_code: options.exited.code, last_lines: lines.slice(-LAST_LINES) };
      if (snapshot.phase !== 'failed') snapshot.phase = 'failed';
      snapshot.eta_s = null;
    }
    return snapshot;
  }

  private line(raw: string): void {
    const text = raw.trimEnd();
    if (text.trim() === '') return;
    if (this.progress(text)) return;
    this.remember(text);
    const trimmed = text.trimStart();
    if (trimmed.startsWith('{"geolab"')) this.event(trimmed);
    else if (trimmed.startsWith("{'") || trimmed.startsWith('{"')) this.metricDict(trimmed);
    else this.textLine(trimmed);
  }

  /** Tracebacks are kept whole (up to LAST_LINES) from their first line; other lines as a tail. */
  private remember(text: string): void {
    if (TRACEBACK.test(text.trimStart())) this.traceback = [];
    if (this.traceback) {
      this.traceback.push(text);
      if (this.traceback.length > LAST_LINES) this.traceback.shift();
    }
    this.tail.push(text);
    if (this.tail.length > LAST_LINES) this.tail = this.tail.slice(-LAST_LINES);
  }

  private progress(text: string): boolean {
    const m = TQDM.exec(text);
    if (!m) return false;
    const [, label = '', done = '', total = '', , remaining = '', rate = '', unit = ''] = m;
    const totalSteps = Number(total);
    // The Trainer's bar has no description (and, once the run's length is known, is the bar that long):
    // "Loading checkpoint shards: 2/2" is no step 2 of a two-step run (`train smoke`).
    const training = label.trim() === '' && (this.maxSteps === null || totalSteps === this.maxSteps);
    if (!training) return true;
    this.maxSteps = totalSteps;
    if (Number(done) !== this.step) this.movedSinceResume = true;
    this.step = Number(done);
    this.etaS = remaining === '?' ? null : clockSeconds(remaining);
    if (rate !== '?') this.sPerIt = unit === 's/it' ? Number(rate) : Number(rate) > 0 ? 1 / Number(rate) : null;
    if (this.phase === 'unknown' || this.phase === 'loading' || this.phase === 'starting') this.phase = 'training';
    return true;
  }

  private event(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return;
    }
    if (!isRecord(value)) return;
    const event = value as TrainerEvent;
    switch (event.geolab) {
      case 'phase':
        this.phase = event.phase;
        return;
      case 'resume':
        this.resume(event.step, event.checkpoint);
        return;
      case 'step':
        this.step = event.step;
        this.maxSteps = event.max_steps;
        this.merge(event.step, event.metrics);
        this.lastStepMs = Date.parse(event.time) || this.lastStepMs;
        if (this.phase === 'unknown' || this.phase === 'loading' || this.phase === 'starting') this.phase = 'training';
        return;
      case 'checkpoint':
        this.checkpoints.set(event.step, event.path);
        return;
    }
  }

  private metricDict(text: string): void {
    const values: Record<string, number> = {};
    for (const m of text.matchAll(DICT_ENTRY)) values[m[2] as string] = Number(m[3]);
    // The Trainer's closing summary (train_runtime, train_loss, ...) is about the run, not a step.
    if (Object.keys(values).length === 0 || 'train_runtime' in values) return;
    this.merge(this.step ?? this.points.size + 1, values);
  }

  private textLine(text: string): void {
    const resume = RESUME_TEXT.exec(text);
    if (resume) {
      this.resume(Number(resume[2]), resume[1] as string);
      return;
    }
    const save = SAVE_TEXT.exec(text);
    if (save) this.checkpoints.set(Number(save[2]), save[1] as string);
  }

  /** The lines after the marker are the run that counts: what the old process did past the checkpoint is redone. */
  private resume(step: number, checkpoint: string): void {
    if (!this.movedSinceResume && this.resumedFrom?.step === step) return;
    this.movedSinceResume = false;
    this.resumedFrom = { step, checkpoint };
    for (const logged of [...this.points.keys()]) if (logged > step) this.points.delete(logged);
    this.step = step;
    this.etaS = null;
    this.traceback = null;
    this.tail = [];
    this.phase = 'loading';
  }

  private merge(step: number, values: Record<string, number>): void {
    this.movedSinceResume = true;
    this.points.set(step, { ...this.points.get(step), ...values });
  }

  private warnings(metrics: MetricPoint[], options: SnapshotOptions): RunWarning[] {
    const out: RunWarning[] = [];
    const last = (name: string) => [...metrics].reverse().find((p) => Number.isFinite(p.values[name]))?.values[name];
    const clipped = last('completions/clipped_ratio');
    if (clipped !== undefined && clipped > CLIPPED_RATIO_WARN) {
      out.push({ id: 'clipped', message: `completions clipped (${pct(clipped)}): raise max_completion_length or lower max_turns` });
    }
    const zeroStd = last('frac_reward_zero_std');
    if (zeroStd !== undefined && zeroStd >= 1) {
      out.push({ id: 'all-groups-equal', message: "every group's rewards were equal (frac_reward_zero_std 1): the step gave no gradient; check the reward and the tasks' difficulty" });
    } else if (zeroStd !== undefined && zeroStd > ZERO_STD_WARN) {
      out.push({ id: 'dead-groups', message: `dead groups: ${pct(zeroStd)} of groups scored alike and give no gradient` });
    }
    const isMean = last('sampling/importance_sampling_ratio/mean');
    if (isMean !== undefined && isMean < IS_RATIO_COLLAPSE) {
      out.push({
        id: 'is-collapse',
        message: `importance-sampling ratio collapsed (mean ${isMean.toExponential(1)}): the gradient is scaled to almost nothing; set grpo.vllm_importance_sampling_correction to false`,
      });
    }
    const since = this.lastStepMs ?? options.lastOutputMs;
    if (options.nowMs !== undefined && since !== undefined && !options.exited && this.phase !== 'done' && this.phase !== 'failed') {
      const stallS = options.stallAfterS ?? Math.max(600, 5 * (this.sPerIt ?? 0));
      const quietS = (options.nowMs - since) / 1000;
      if (quietS > stallS) out.push({ id: 'stalled', message: `no step progress for ${formatDuration(quietS)}` });
    }
    return out;
  }
}

/** "1:39:10" or "05:01" as seconds. */
function clockSeconds(text: string): number {
  return text.split(':').reduce((total, part) => total * 60 + Number(part), 0);
}

function pct(fraction: number): string {
  return `${Math.round(fraction * 100)}%`;
}

/** "3 h 05 min", "12 min", "40 s". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const minutes = Math.floor(s / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}
