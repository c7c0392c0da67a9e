/**
 * A sweep's live progress: `geolab eval run` rewrites `<out>/sweep.json` atomically (at most once a
 * second) while it runs. The file is replaced whole, never appended to, so one that does not parse
 * is a real problem to show rather than a write caught half-way.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../core/errors.js';
import { readTextIfPresent } from '../files.js';
import { isRecord } from '../core/values.js';
import { processAlive } from '../processes.js';

export const SWEEP_FILE = 'sweep.json';
/** Shards of one sweep share its folder (docs/sharding.md): each writes a status file of its own. */
export const shardStatusFile = (index: number): string => `sweep-shard-${index}.json`;
const SHARD_STATUS_FILE = /^sweep-shard-(\d+)\.json$/;

export const SWEEP_STATES = ['running', 'done', 'failed', 'interrupted'] as const;
export type SweepState = (typeof SWEEP_STATES)[number];

export interface SweepModelProgress {
  name: string;
  /** Episodes completed; failed (an endpoint gone or unusable, an environment error, a leak) and aborted (the sweep interrupted) besides. */
  done: number;
  failed: number;
  total: number;
  /** Absent in files written before they were counted. */
  aborted?: number;
  /** Model requests sent again after a failed attempt (429, 5xx, timeouts), in every episode played. */
  retries?: number;
  /** Turns whose model request got no reply after its retries. */
  provider_errors?: number;
  per_min: number;
  /** null: no rate yet to tell. */
  eta_s: number | null;
}

export interface SweepStatus {
  run_id: string;
  pid: number;
  status: SweepState;
  started_at: string;
  updated_at: string;
  models: SweepModelProgress[];
  /** Episodes in flight against the machine's limit, and the last window's CPU (absent in older files). */
  machine?: SweepMachine;
}

export interface SweepMachine {
  in_flight: number;
  limit: number;
  /** The limit follows the machine (no --concurrency given). */
  adaptive: boolean;
  /** The process's CPU share of its cores and the event loop's utilisation, 0..1; null before the first window. */
  cpu: number | null;
  event_loop: number | null;
  /** geolab itself is the bottleneck. */
  cpu_bound: boolean;
}

/** What a reader shows: the writer's own status, or `stopped` when it says running but its process is gone. */
export type SweepPhase = SweepState | 'stopped';

const got = (value: unknown) => (value === undefined ? 'nothing' : JSON.stringify(value)?.slice(0, 60));

export function parseSweepStatus(text: string, file: string): SweepStatus {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new InputError(`not valid JSON: ${(err as Error).message} (the writer replaces it whole, so this is not a write in progress)`, { file });
  }
  const fail = (field: string, expected: string, actual: unknown): never => {
    throw new InputError(`expected ${expected}, got ${got(actual)}`, { file, field });
  };
  if (!isRecord(value)) return fail('', 'a JSON object', value);
  const string = (v: unknown, field: string) => (typeof v === 'string' ? v : fail(field, 'a string', v));
  const count = (v: unknown, field: string) => (Number.isInteger(v) && (v as number) >= 0 ? (v as number) : fail(field, 'a whole number >= 0', v));
  const rate = (v: unknown, field: string) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : fail(field, 'a number >= 0', v));
  const status = value.status;
  if (!SWEEP_STATES.includes(status as SweepState)) fail('status', SWEEP_STATES.map((s) => `"${s}"`).join(', '), status);
  if (!Array.isArray(value.models)) fail('models', 'an array', value.models);
  const models = (value.models as unknown[]).map((m, i): SweepModelProgress => {
    const at = `models[${i}]`;
    if (!isRecord(m)) return fail(at, 'an object', m);
    return {
      name: string(m.name, `${at}.name`),
      done: count(m.done, `${at}.done`),
      failed: count(m.failed, `${at}.failed`),
      total: count(m.total, `${at}.total`),
      per_min: rate(m.per_min, `${at}.per_min`),
      eta_s: m.eta_s === null || m.eta_s === undefined ? null : rate(m.eta_s, `${at}.eta_s`),
      aborted: m.aborted === undefined ? 0 : count(m.aborted, `${at}.aborted`),
      retries: m.retries === undefined ? 0 : count(m.retries, `${at}.retries`),
      provider_errors: m.provider_errors === undefined ? 0 : count(m.provider_errors, `${at}.provider_errors`),
    };
  });
  const pid = value.pid;
  if (!Number.isInteger(pid) || (pid as number) <= 0) fail('pid', 'a process id (a whole number > 0)', pid);
  return {
    run_id: string(value.run_id, 'run_id'),
    pid: pid as number,
    status: status as SweepState,
    started_at: string(value.started_at, 'started_at'),
    updated_at: string(value.updated_at, 'updated_at'),
    models,
    ...(value.machine === undefined ? {} : { machine: parseMachine(value.machine, count, rate, fail) }),
  };
}

function parseMachine(
  m: unknown,
  count: (v: unknown, field: string) => number,
  rate: (v: unknown, field: string) => number,
  fail: (field: string, expected: string, actual: unknown) => never,
): SweepMachine {
  if (!isRecord(m)) return fail('machine', 'an object', m);
  const flag = (v: unknown, field: string) => (typeof v === 'boolean' ? v : fail(field, 'true or false', v));
  const share = (v: unknown, field: string) => (v === null ? null : rate(v, field));
  return {
    in_flight: count(m.in_flight, 'machine.in_flight'),
    limit: count(m.limit, 'machine.limit'),
    adaptive: flag(m.adaptive, 'machine.adaptive'),
    cpu: share(m.cpu, 'machine.cpu'),
    event_loop: share(m.event_loop, 'machine.event_loop'),
    cpu_bound: flag(m.cpu_bound, 'machine.cpu_bound'),
  };
}

/**
 * The sweep's status in its output folder: its sweep.json, or its shards' status files taken
 * together; null while nothing has been written yet.
 */
export function readSweepStatus(dir: string): SweepStatus | null {
  let shards: string[];
  try {
    shards = readdirSync(dir)
      .filter((name) => SHARD_STATUS_FILE.test(name))
      .sort((a, b) => Number(SHARD_STATUS_FILE.exec(a)![1]) - Number(SHARD_STATUS_FILE.exec(b)![1]));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new InputError(`cannot read: ${(err as Error).message}`, { file: dir });
  }
  const statuses = [SWEEP_FILE, ...shards].map((name) => readStatusFile(join(dir, name))).filter((s): s is SweepStatus => s !== null);
  if (statuses.length <= 1) return statuses[0] ?? null;
  return mergeStatuses(statuses);
}

function readStatusFile(file: string): SweepStatus | null {
  const text = readTextIfPresent(file);
  return text === null ? null : parseSweepStatus(text, file);
}

/** Order of precedence when shards disagree: one still running makes the sweep running, and so on. */
const MERGED_STATE: readonly SweepState[] = ['running', 'failed', 'interrupted', 'done'];

/**
 * Shards' statuses as one sweep's: counts and rates summed per model, the latest ETA, the state of
 * highest precedence with the PID of a shard in it (so a running shard whose process is gone still
 * reads as stopped), the earliest start and latest update. Machine figures are per process: left out.
 */
export function mergeStatuses(statuses: readonly SweepStatus[]): SweepStatus {
  const state = MERGED_STATE.find((s) => statuses.some((x) => x.status === s)) ?? 'done';
  const lead = statuses.find((x) => x.status === state)!;
  const models = new Map<string, SweepModelProgress>();
  for (const status of statuses) {
    for (const m of status.models) {
      const sum = models.get(m.name);
      if (!sum) {
        models.set(m.name, { ...m });
        continue;
      }
      sum.done += m.done;
      sum.failed += m.failed;
      sum.total += m.total;
      sum.aborted = (sum.aborted ?? 0) + (m.aborted ?? 0);
      sum.retries = (sum.retries ?? 0) + (m.retries ?? 0);
      sum.provider_errors = (sum.provider_errors ?? 0) + (m.provider_errors ?? 0);
      sum.per_min = Number((sum.per_min + m.per_min).toFixed(2));
      sum.eta_s = sum.eta_s === null || m.eta_s === null ? null : Math.max(sum.eta_s, m.eta_s);
    }
  }
  const times = (key: 'started_at' | 'updated_at') => statuses.map((x) => x[key]).sort();
  return {
    run_id: lead.run_id,
    pid: lead.pid,
    status: state,
    started_at: times('started_at')[0]!,
    updated_at: times('updated_at').at(-1)!,
    models: [...models.values()],
  };
}

export function sweepPhase(status: SweepStatus, alive: (pid: number) => boolean = processAlive): SweepPhase {
  return status.status === 'running' && !alive(status.pid) ? 'stopped' : status.status;
}
