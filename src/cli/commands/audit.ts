/**
 * `geolab audit`: every prompt of the sources named (the workspace's episodes when none is) through
 * the detector core, the findings reported as text, JSON or SARIF, and the gate: exit 1 on a new
 * (not baselined) finding at or above --fail-on. `geolab audit baseline add` accepts one finding.
 * Prompts are streamed; only findings are kept. Draws no TUI: ink and React are never loaded, and
 * SQLite only when the workspace is read.
 */
import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { EXIT, UsageError } from '../../core/errors.js';
import { acceptedBy, acceptedEntry, DEFAULT_BASELINE, isFindingId, readBaseline, writeBaseline, type Baseline } from '../../audit/baseline.js';
import { auditPrompt, LEAK_RADIUS_KM } from '../../audit/detect.js';
import { emptyCounts, failing, jsonReport, summarize, textReport, type AuditCounts } from '../../audit/report.js';
import { readCompletionsFile } from '../../audit/sources/completions.js';
import { episodeFiles, readEpisodeFile } from '../../audit/sources/episodes.js';
import type { OnBytes } from '../../audit/sources/jsonl.js';
import { readPromptFile } from '../../audit/sources/prompt-file.js';
import { tasksFromFiles, tasksFromWorkspace, type TaskLookup } from '../../audit/sources/tasks.js';
import { readTraceFile } from '../../audit/sources/traces.js';
import type { AuditPrompt, Finding, Severity } from '../../audit/types.js';
import { PACKAGE_ROOT } from '../../paths.js';
import type { Workspace } from '../../store/index.js';
import type { GlobalOptions } from '../main.js';
import { printJson, printLine, warn } from '../output.js';

export interface AuditCommandOptions extends GlobalOptions {
  episodes?: string[];
  prompts?: string[];
  traces?: string[];
  completions?: string[];
  tasks?: string[];
  radiusKm?: number;
  baseline?: string;
  update?: boolean;
  failOn?: Severity;
  sarif?: boolean;
}

type Reader = (file: string, source: string, onBytes?: OnBytes) => AsyncGenerator<AuditPrompt>;

interface FileSource {
  file: string;
  /** The file as findings name it: relative to the current folder when inside it, so ids survive a move of the checkout. */
  source: string;
  read: Reader;
  bytes: number;
}

export async function auditCommand(opts: AuditCommandOptions): Promise<void> {
  if (opts.json && opts.sarif) throw new UsageError('--json and --sarif both given: choose one output');
  if (opts.workspace?.startsWith('-')) {
    throw new UsageError(`--workspace takes the workspace folder, got "${opts.workspace}" (without any source the audit reads the default workspace)`);
  }
  const radiusKm = opts.radiusKm ?? LEAK_RADIUS_KM;
  if (!(radiusKm > 0)) throw new UsageError(`--radius-km expects a distance above 0 km, got ${radiusKm}`);
  const failOn = opts.failOn ?? 'high';
  const started = performance.now();
  // A broken baseline stops the run before any reading: the gate would be wrong without it.
  const baselineFile = opts.baseline ?? DEFAULT_BASELINE;
  const baseline = readBaseline(baselineFile, opts.baseline === undefined || opts.update === true);
  const files = fileSources(opts);
  const useWorkspace = opts.workspace !== undefined || files.length === 0;

  let ws: Workspace | undefined;
  const findings: Finding[] = [];
  const counts = emptyCounts();
  const lines = new Map<string, number>();
  try {
    if (useWorkspace || !opts.tasks) ws = await (await import('../../store/index.js')).openWorkspace(opts.workspace);
    const tasks = opts.tasks ? await tasksFromFiles(opts.tasks) : await tasksFromWorkspace(ws as Workspace);
    const progress = new Progress(files.reduce((sum, f) => sum + f.bytes, 0));
    const run = new Run(tasks, radiusKm, baseline, counts, findings, lines);
    try {
      for (const f of files) {
        counts.sources++;
        for await (const prompt of f.read(f.file, f.source, progress.onBytes)) {
          run.audit(prompt);
          progress.tick(counts.prompts);
        }
      }
      if (useWorkspace && ws) {
        counts.sources++;
        const { readWorkspaceEpisodes } = await import('../../audit/sources/workspace.js');
        for await (const prompt of readWorkspaceEpisodes(ws)) {
          run.audit(prompt);
          progress.tick(counts.prompts);
        }
      }
    } finally {
      progress.done();
    }
  } finally {
    ws?.close();
  }

  if (opts.update) acceptAll(findings, baseline, baselineFile);
  const summary = summarize(findings, counts, failOn, (performance.now() - started) / 1000);
  const lineOf = (f: Finding) => lines.get(promptKey(f.source, f.prompt_id));
  if (opts.sarif) {
    const { sarifReport } = await import('../../audit/report-sarif.js');
    printJson(sarifReport(findings, { version: packageVersion(), lineOf, baseline }));
  } else if (opts.json) {
    printJson(jsonReport(summary, findings));
  } else {
    for (const line of textReport(summary, findings, lineOf)) printLine(line);
  }
  if (failing(findings, failOn).length > 0) process.exitCode = EXIT.problemFound;
}

/** The audit of the prompts as they stream by; only findings (and the lines that locate them) are kept. */
class Run {
  private episode = '';
  /** What this episode's earlier requests were already reported for. */
  private readonly reported = new Set<string>();

  constructor(
    private readonly tasks: TaskLookup,
    private readonly radiusKm: number,
    private readonly baseline: Baseline,
    private readonly counts: AuditCounts,
    private readonly findings: Finding[],
    private readonly lines: Map<string, number>,
  ) {}

  audit(prompt: AuditPrompt): void {
    const c = this.counts;
    c.prompts++;
    if (prompt.turn !== undefined) c.turns++;
    c.messages += prompt.messages.length;
    for (const m of prompt.messages) c.images += m.images.length;
    const episode = prompt.episodeId === undefined ? '' : `${prompt.source}\0${prompt.episodeId}`;
    if (episode !== this.episode) {
      this.episode = episode;
      this.reported.clear();
    }
    for (const f of auditPrompt(prompt, this.tasks.find(prompt.task), { radiusKm: this.radiusKm })) {
      // Every request of an episode re-sends its history: a leak is reported where it first appeared.
      if (episode) {
        const key = [f.kind, f.message, f.text_index, f.text, f.evidence].join('\0');
        if (this.reported.has(key)) {
          c.repeats++;
          continue;
        }
        this.reported.add(key);
      }
      f.baselined = this.baseline.has(f.id);
      this.findings.push(f);
      if (prompt.line !== undefined) this.lines.set(promptKey(prompt.source, prompt.promptId), prompt.line);
    }
  }
}

function promptKey(source: string, promptId: string): string {
  return `${source}\0${promptId}`;
}

function fileSources(opts: AuditCommandOptions): FileSource[] {
  const sources: FileSource[] = [];
  const add = (file: string, read: Reader) => sources.push({ file, source: sourceName(file), read, bytes: sizeOf(file) });
  for (const path of opts.episodes ?? []) for (const file of episodeFiles(path)) add(file, readEpisodeFile);
  for (const file of opts.prompts ?? []) add(file, readPromptFile);
  for (const file of opts.traces ?? []) add(file, readTraceFile);
  for (const file of opts.completions ?? []) add(file, readCompletionsFile);
  return sources;
}

function sourceName(file: string): string {
  const path = resolve(file);
  const inside = relative(process.cwd(), path);
  return inside === '' || inside.startsWith('..') || isAbsolute(inside) ? path : inside;
}

/** Size for the progress line's ETA; a file that cannot be read is reported by its reader. */
function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** --update: every current finding becomes accepted (those already accepted keep their reason). */
function acceptAll(findings: Finding[], baseline: Baseline, file: string): void {
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
  warn(`baseline: ${added} finding(s) newly accepted, ${baseline.size} in ${file}`);
}

export async function baselineAddCommand(id: string, opts: { reason?: string; baseline?: string }): Promise<void> {
  if (!isFindingId(id)) throw new UsageError(`expected a finding id (the hex "id" of a finding), got "${id}"`);
  const reason = opts.reason?.trim();
  if (!reason) throw new UsageError('--reason TEXT is required: say why this finding is acceptable');
  const file = opts.baseline ?? DEFAULT_BASELINE;
  const baseline = readBaseline(file, true);
  const existed = baseline.has(id);
  baseline.set(id, acceptedEntry(id, reason));
  writeBaseline(file, baseline);
  printLine(`${existed ? 'updated' : 'accepted'} ${id} in ${file} (${baseline.size} accepted)`);
}

function packageVersion(): string {
  return (JSON.parse(readFileSync(resolve(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

/** Count, rate and ETA on stderr, only on a terminal, at most five times a second. */
class Progress {
  private readonly tty = process.stderr.isTTY === true;
  private readonly started = performance.now();
  private bytesDone = 0;
  private last = 0;
  private shown = false;

  constructor(private readonly totalBytes: number) {}

  readonly onBytes = (bytes: number): void => {
    this.bytesDone += bytes;
  };

  tick(prompts: number): void {
    if (!this.tty) return;
    const now = performance.now();
    if (now - this.last < 200) return;
    this.last = now;
    const seconds = (now - this.started) / 1000;
    const rate = prompts / Math.max(seconds, 1e-3);
    const fraction = this.totalBytes > 0 ? Math.min(1, this.bytesDone / this.totalBytes) : 0;
    const eta = fraction > 0 && fraction < 1 ? `, ${Math.round(fraction * 100)}%, ETA ${Math.ceil((seconds * (1 - fraction)) / fraction)} s` : '';
    process.stderr.write(`\raudit: ${prompts} prompts, ${Math.round(rate)}/s${eta}\x1b[K`);
    this.shown = true;
  }

  done(): void {
    if (this.shown) process.stderr.write('\r\x1b[K');
  }
}
