/**
 * The audit job: everything `geolab audit` and the TUI's Audit screen do but show it. One run
 * (src/audit/run.ts), its findings marked against the baseline (every current one accepted first
 * with `update`), the summary and the gate worked out once, and the workspace's last counts for Home
 * when its episodes were audited. The command prints the job; the screen draws it.
 */
import type { SkippedEntry } from '../files.js';
import { EXIT, type ExitCode } from '../core/errors.js';
import type { Workspace } from '../store/index.js';
import { workspacePaths } from '../store/workspace.js';
import { acceptedBy, acceptedEntry, acceptInBaseline, DEFAULT_BASELINE, readBaseline, writeBaseline, type Baseline } from './baseline.js';
import { LEAK_RADIUS_KM } from './detect.js';
import { lastAuditOf, writeLastAudit } from './last-run.js';
import { summarize, type AuditSummary } from './report.js';
import { hasFileSources, runAudit, type AuditResult, type AuditSources, type OnAuditProgress } from './run.js';
import type { OnInvalid } from './sources/jsonl.js';
import type { Finding, Severity } from './types.js';

/** Where a job reads and what it gates on: the same for the audit and its baseline commands. */
export interface AuditJobSetup extends AuditSources {
  /** Task files giving truth and identity; else the workspace's task sets. */
  tasks?: string[];
  /** Whether the workspace's episodes are audited (with the sources named, if any). */
  readWorkspace: boolean;
  /** The workspace's folder: its audit keeps the baseline and the last counts there. */
  workspaceDir?: string;
  /** Coordinates nearer the truth than this are a leak (default LEAK_RADIUS_KM). */
  radiusKm?: number;
  /** The baseline file, when one is named (else the workspace's when it is read, else DEFAULT_BASELINE). */
  baseline?: string;
  /** New findings at or above it fail the job (default high). */
  failOn?: Severity;
}

export interface AuditJobOptions extends AuditJobSetup {
  /** Opens the workspace when its task sets or episodes are read; the caller closes it. */
  openWorkspace?: () => Promise<Workspace>;
  /** Accept every current finding into the baseline before the summary (`geolab audit --update`). */
  update?: boolean;
  /** Write the workspace's last counts for Home when its episodes alone were audited (default true). */
  recordLastAudit?: boolean;
  /** Skip bad lines of prompt files (each told to `onInvalid`, all counted; the job then fails). */
  skipInvalid?: boolean;
  onInvalid?: OnInvalid;
  /** Entries the walks of the run trees passed over, with why. */
  onSkipped?: (entry: SkippedEntry) => void;
}

export interface AuditJob {
  /** The run: counts, mentions explained, and where each finding's prompt was read. */
  result: AuditResult;
  /** The run's findings, `baselined` when the baseline accepts them (new otherwise). */
  findings: Finding[];
  baseline: Baseline;
  baselineFile: string;
  /** Counts of the findings, new and accepted, and the gate at the job's fail-on. */
  summary: AuditSummary;
  /** EXIT.problemFound on a new finding at or above fail-on or an invalid line skipped, else EXIT.ok. */
  exitStatus: ExitCode;
  /** With `update`: how many findings were newly accepted. */
  newlyAccepted?: number;
  /** Where the last counts were written (the workspace's own audit only). */
  lastAuditFile?: string;
}

/** The baseline file and the last-counts file of a job, before any run (the baseline commands need only these). */
export function auditFiles(setup: AuditJobSetup): { baselineFile: string; lastAuditFile?: string } {
  // The workspace's audit keeps its baseline in the workspace, where the Audit screen writes it.
  const paths = setup.readWorkspace && setup.workspaceDir !== undefined ? workspacePaths(setup.workspaceDir) : undefined;
  // Home shows the open findings of the workspace's own audit (its episodes, nothing else).
  const lastAuditFile = paths && !hasFileSources(setup) ? paths.lastAudit : undefined;
  return { baselineFile: setup.baseline ?? paths?.auditBaseline ?? DEFAULT_BASELINE, ...(lastAuditFile ? { lastAuditFile } : {}) };
}

export async function auditJob(options: AuditJobOptions, onProgress?: OnAuditProgress): Promise<AuditJob> {
  const started = performance.now();
  const files = auditFiles(options);
  // A broken baseline stops the job before any reading: the gate would be wrong without it. A file
  // that does not exist yet accepts nothing (the first run of a CI recipe).
  const baseline = readBaseline(files.baselineFile, true);
  const result = await runAudit(
    {
      ...sourcesOf(options),
      readWorkspace: options.readWorkspace,
      radiusKm: options.radiusKm ?? LEAK_RADIUS_KM,
      ...(options.openWorkspace ? { workspace: options.openWorkspace } : {}),
      ...(options.skipInvalid ? { skipInvalid: true } : {}),
      ...(options.onInvalid ? { onInvalid: options.onInvalid } : {}),
      ...(options.onSkipped ? { onSkipped: options.onSkipped } : {}),
    },
    onProgress,
  );
  for (const f of result.findings) f.baselined = baseline.has(f.id);
  const newlyAccepted = options.update ? acceptAll(result.findings, baseline, files.baselineFile) : undefined;
  const job: AuditJob = {
    result,
    findings: result.findings,
    baseline,
    baselineFile: files.baselineFile,
    summary: summarize(result.findings, result.counts, options.failOn ?? 'high', (performance.now() - started) / 1000, result.explained),
    exitStatus: EXIT.ok,
    ...(newlyAccepted !== undefined ? { newlyAccepted } : {}),
    ...(files.lastAuditFile && options.recordLastAudit !== false ? { lastAuditFile: files.lastAuditFile } : {}),
  };
  settle(job);
  return job;
}

/**
 * Accepts findings of a finished job with one reason (one atomic write of the baseline, those
 * already accepted get the new reason): the job's findings, summary, gate and last counts follow.
 * Returns the ids the baseline already held.
 */
export function acceptFindings(job: AuditJob, ids: readonly string[], reason: string): { existed: string[] } {
  const { existed, baseline } = acceptInBaseline(job.baselineFile, [...new Set(ids)], reason);
  job.baseline = baseline;
  for (const f of job.findings) f.baselined = baseline.has(f.id);
  const { summary, result } = job;
  job.summary = summarize(job.findings, result.counts, summary.fail_on, summary.seconds, result.explained);
  settle(job);
  return { existed };
}

/** The gate from the summary, and Home's last counts. */
function settle(job: AuditJob): void {
  job.exitStatus = job.summary.invalid > 0 || job.summary.failing > 0 ? EXIT.problemFound : EXIT.ok;
  if (job.lastAuditFile) writeLastAudit(job.lastAuditFile, lastAuditOf(job.summary, job.findings, job.summary.seconds));
}

/** --update: every current finding becomes accepted (those already accepted keep their reason); how many were new. */
function acceptAll(findings: Finding[], baseline: Baseline, file: string): number {
  const by = acceptedBy();
  let added = 0;
  for (const f of findings) {
    if (!baseline.has(f.id)) {
      baseline.set(f.id, acceptedEntry(f.id, `accepted with --update (${f.kind}: ${f.evidence})`, by));
      added++;
    }
    f.baselined = true;
  }
  writeBaseline(file, baseline);
  return added;
}

/** The sources and task files of a setup, for the run. */
function sourcesOf({ episodes, prompts, traces, completions, tasks }: AuditJobSetup): AuditSources & { tasks?: string[] } {
  return { episodes, prompts, traces, completions, tasks };
}
