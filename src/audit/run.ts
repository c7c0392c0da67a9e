/**
 * One audit run, as `geolab audit` and the TUI's Audit screen both do it: the sources' prompts
 * streamed through the detector core against the tasks' truth, repeats within an episode dropped.
 * Only findings (and the lines that locate them) are kept. The baseline, the summary and the gate
 * are the job's (src/audit/job.ts), which both call.
 */
import { statSync } from 'node:fs';
import { InputError } from '../core/errors.js';
import { isAbsolute, relative, resolve } from 'node:path';
import { runTreeFiles, type SkippedEntry } from '../files.js';
import type { Workspace } from '../store/index.js';
import { findingId } from './detect.js';
import { Examiner, type Examined, type PlacedLine } from './examine.js';
import { examineInParallel, parallelPlan, type BadLine, type ParallelPlan } from './parallel.js';
import { emptyCounts, emptyExplained, EXPLAINED_NOTES_MAX, type AuditCounts, type ExplainedSummary } from './report.js';
import { readCompletionsFile } from './sources/completions.js';
import { readEpisodeFile } from './sources/episodes.js';
import type { OnBytes, OnInvalid } from './sources/jsonl.js';
import { readPromptFile } from './sources/prompt-file.js';
import { tasksFromFiles, tasksFromWorkspace, type TaskLookup } from './sources/tasks.js';
import { readTraceFile } from './sources/traces.js';
import type { AuditPrompt, AuditTask, Explanation, Finding } from './types.js';

export interface AuditSources {
  episodes?: string[];
  prompts?: string[];
  traces?: string[];
  completions?: string[];
}

export interface RunAuditOptions extends AuditSources {
  /** Task files giving truth and identity; else the workspace's task sets. */
  tasks?: string[];
  /** Opens the workspace (after the files are found): its task sets are read when no `tasks`, its episodes when `readWorkspace`. */
  workspace?: () => Promise<Workspace>;
  readWorkspace: boolean;
  radiusKm: number;
  /** Skip bad lines of prompt files (each told to `onInvalid`, all counted) instead of stopping. */
  skipInvalid?: boolean;
  onInvalid?: OnInvalid;
  /** Entries the walks of the run trees passed over, with why (links to folders, /proc, a file reached twice). */
  onSkipped?: (entry: SkippedEntry) => void;
  /** When a prompt file is read on several threads, and how (parallel.ts; the defaults follow the machine). */
  parallel?: Partial<ParallelPlan>;
}

export interface AuditProgress {
  prompts: number;
  /** Bytes of the named files read so far, and in all (0 when only the workspace is read). */
  bytesDone: number;
  totalBytes: number;
}

/** Called after every prompt; a promise returned is waited for (the TUI lets its frame draw). */
export type OnAuditProgress = (progress: AuditProgress) => void | Promise<void>;

export interface AuditResult {
  counts: AuditCounts;
  /** Every finding unaccepted (`baselined` false): the job marks them against its baseline. */
  findings: Finding[];
  /** Mentions the agent's own points explain: counted, the first few kept. */
  explained: ExplainedSummary;
  /** The source line a finding's prompt was read from, when it came from a line of a file. */
  lineOf(finding: Finding): number | undefined;
  /** The most threads one file's prompts were read on: the main thread and the workers that examined some (parallel.ts). */
  threads: number;
}

type Reader = (file: string, source: string, onBytes?: OnBytes, onInvalid?: OnInvalid) => AsyncGenerator<AuditPrompt>;

interface FileSource {
  file: string;
  /** The file as findings name it: relative to the current folder when inside it, so ids survive a move of the checkout. */
  source: string;
  read: Reader;
  bytes: number;
}

export function hasFileSources(sources: AuditSources): boolean {
  return [sources.episodes, sources.prompts, sources.traces, sources.completions].some((list) => (list?.length ?? 0) > 0);
}

export async function runAudit(options: RunAuditOptions, onProgress?: OnAuditProgress): Promise<AuditResult> {
  const files = fileSources(options, options.onSkipped);
  const ws = options.readWorkspace || !options.tasks ? await options.workspace?.() : undefined;
  if (!options.tasks && !ws) throw new Error('runAudit: neither task files nor a workspace to find the tasks in');
  const tasks = options.tasks ? await tasksFromFiles(options.tasks) : await tasksFromWorkspace(ws as Workspace);
  const counts = emptyCounts();
  const findings: Finding[] = [];
  const lines = new Map<string, number>();
  const explained = emptyExplained();
  const run = new Run(tasks, counts, findings, lines, explained);
  const examiner = new Examiner(tasks, options.radiusKm);
  const plan = parallelPlan(options.parallel);
  let threads = 1;
  const progress: AuditProgress = { prompts: 0, bytesDone: 0, totalBytes: files.reduce((sum, f) => sum + f.bytes, 0) };
  const onBytes = (bytes: number) => {
    progress.bytesDone += bytes;
  };
  const record = async (examined: Examined) => {
    run.record(examined);
    progress.prompts = counts.prompts;
    await onProgress?.(progress);
  };
  const onInvalid: OnInvalid | undefined = options.skipInvalid
    ? (error) => {
        counts.invalid++;
        options.onInvalid?.(error);
      }
    : undefined;
  for (const f of files) {
    counts.sources++;
    // Only prompt files skip bad lines: the other sources' records are written by programs, not people.
    if (f.read !== readPromptFile) {
      for await (const prompt of f.read(f.file, f.source, onBytes)) await record(await examiner.examine(prompt));
      continue;
    }
    const ids = new PromptIds(f.file, onInvalid);
    const examined = f.bytes >= plan.minBytes && plan.threads > 1
      ? examineInParallel({ file: f.file, source: f.source, tasks, radiusKm: options.radiusKm, examiner, skipInvalid: onInvalid !== undefined, plan, onBytes, onWorkers: (n) => (threads = Math.max(threads, 1 + n)) })
      : examineInOrder(readPromptFile(f.file, f.source, onBytes, onInvalid), examiner);
    for await (const item of examined) {
      if ('bad' in item) badLine(f.file, item, onInvalid);
      else if (ids.first(item)) await record(item);
    }
  }
  if (options.readWorkspace && ws) {
    counts.sources++;
    const { readWorkspaceEpisodes } = await import('./sources/workspace.js');
    for await (const prompt of readWorkspaceEpisodes(ws)) await record(await examiner.examine(prompt));
  }
  run.finish();
  return { counts, findings, explained, lineOf: (f) => lines.get(promptKey(f.source, f.prompt_id)), threads };
}

async function* examineInOrder(prompts: AsyncIterable<AuditPrompt>, examiner: Examiner): AsyncGenerator<Examined> {
  for await (const prompt of prompts) yield await examiner.examine(prompt);
}

/** A bad line (from a parallel read, or a repeated id): skipped and told to `onInvalid`, else the run stops on it. */
function badLine(file: string, { bad }: BadLine, onInvalid: OnInvalid | undefined): void {
  const error = new InputError(bad.message, { file, line: bad.line, ...(bad.field !== undefined ? { field: bad.field } : {}) });
  if (!onInvalid) throw error;
  onInvalid(error);
}

/** A prompt file's ids: each names one line (a repeat is a bad line, skipped with --skip-invalid). */
class PromptIds {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly file: string,
    private readonly onInvalid: OnInvalid | undefined,
  ) {}

  /** Whether this is the id's first line; a repeat is thrown, or told to onInvalid and false. */
  first(prompt: Examined): boolean {
    const line = prompt.line ?? 0;
    const first = this.seen.get(prompt.promptId);
    if (first === undefined) {
      this.seen.set(prompt.promptId, line);
      return true;
    }
    badLine(this.file, { bad: { line, field: 'id', message: `id ${JSON.stringify(prompt.promptId)} is repeated (first on line ${first}): expected one line per prompt id` } }, this.onInvalid);
    return false;
  }
}

/**
 * A line that names a place in the prompts of this many different tasks, and names nothing of some
 * of them, is an instruction template (docs/audit.md): one template finding, not one per task.
 */
export const TEMPLATE_TASKS = 3;
/** Lines counted at most; a line first seen once the table is full is not counted (its findings stay per task). */
const LINES_COUNTED_MAX = 20_000;
/** Tasks counted per line at most (the evidence then says "or more"). */
const TASKS_COUNTED_MAX = 256;

/** A line of harness text that holds something a detector reads: the tasks whose prompts hold it. */
interface LineSeen {
  tasks: Set<AuditTask>;
  /** Seen in a prompt in which it gave no finding: it names nothing of that prompt's task. */
  quiet: boolean;
}

/** The findings one line of text gave, over the tasks whose prompts hold it. */
interface LineFindings {
  tasks: Set<AuditTask>;
  names: Set<string>;
  /** Where the line first stood: its text's prompt, message and text index, and the line's span. */
  first: Finding;
  span: { start: number; end: number };
}

/**
 * The run's bookkeeping, prompt by prompt in the sources' order: counts, repeats within an episode
 * dropped, template lines counted. Only findings (and the lines that locate them) are kept.
 */
class Run {
  /** Findings that may be a template's, by the line they stand in; settled by finish(). */
  private readonly lineOfFinding = new Map<Finding, string>();
  private readonly byLine = new Map<string, LineFindings>();
  private readonly seenLines = new Map<string, LineSeen>();
  /**
   * The tasks for which a text's place lines (placeLines' array, kept with the text's scan) can no
   * longer change what seenLines holds: each line is quiet and counts the task, or counts as many
   * tasks as are kept. A prompt re-sent with the same text for the same task then skips the lines.
   */
  private readonly settled = new WeakMap<readonly string[], Set<AuditTask>>();
  private episode = '';
  /** What this episode's earlier requests were already reported for. */
  private readonly reported = new Set<string>();
  /** What this episode's earlier requests already had explained. */
  private readonly noted = new Set<string>();
  private notedInPrompt = false;

  constructor(
    private readonly tasks: TaskLookup,
    private readonly counts: AuditCounts,
    private readonly findings: Finding[],
    private readonly lines: Map<string, number>,
    private readonly explained: ExplainedSummary,
  ) {}

  record(prompt: Examined): void {
    const c = this.counts;
    c.prompts++;
    if (prompt.turn) c.turns++;
    c.messages += prompt.messages;
    c.images += prompt.images;
    const episode = prompt.episodeId === undefined ? '' : `${prompt.source}\0${prompt.episodeId}`;
    if (episode !== this.episode) {
      this.episode = episode;
      this.reported.clear();
      this.noted.clear();
    }
    this.notedInPrompt = false;
    for (const e of prompt.explained) this.note(e);
    const task = this.tasks.find(prompt.task);
    if (task) this.countLines(prompt, task);
    prompt.found.forEach((f, i) => {
      // Every request of an episode re-sends its history: a leak is reported where it first appeared.
      if (episode) {
        const key = [f.kind, f.message, f.text_index, f.text, f.evidence].join('\0');
        if (this.reported.has(key)) {
          c.repeats++;
          return;
        }
        this.reported.add(key);
      }
      this.findings.push(f);
      const where = prompt.where[i];
      if (task && where) this.noteLine(f, where, task);
      if (prompt.line !== undefined) this.lines.set(promptKey(prompt.source, prompt.promptId), prompt.line);
    });
  }

  /** A mention the agent's own points explain: counted once per episode, the first few kept. */
  private note(e: Explanation): void {
    if (this.episode) {
      const key = [e.kind, e.message, e.text_index, e.text, e.evidence].join('\0');
      if (this.noted.has(key)) return;
      this.noted.add(key);
    }
    this.explained.mentions++;
    if (!this.notedInPrompt) this.explained.prompts++;
    this.notedInPrompt = true;
    if (this.explained.notes.length < EXPLAINED_NOTES_MAX) this.explained.notes.push(e);
  }

  /** Keeps the line a place finding stands in, with its task, until the run ends. */
  private noteLine(f: Finding, { line, span }: PlacedLine, task: AuditTask): void {
    this.lineOfFinding.set(f, line);
    let seen = this.byLine.get(line);
    if (!seen) {
      seen = { tasks: new Set(), names: new Set(), first: f, span };
      this.byLine.set(line, seen);
    }
    seen.tasks.add(task);
    seen.names.add(f.text);
  }

  /**
   * Counts, for each line of the prompt's harness texts that holds a word or a point the detectors
   * read, the tasks whose prompts hold it, and whether it gave no finding here.
   */
  private countLines(prompt: Examined, task: AuditTask): void {
    let gave: Set<string> | undefined;
    for (const where of prompt.where) if (where) (gave ??= new Set()).add(where.line);
    for (const lines of prompt.placeLines) {
      const settledFor = this.settled.get(lines);
      if (settledFor?.has(task)) continue;
      let settled = true;
      for (const line of lines) {
        let seen = this.seenLines.get(line);
        if (!seen) {
          if (this.seenLines.size >= LINES_COUNTED_MAX) continue; // never counted: nothing to settle
          seen = { tasks: new Set(), quiet: false };
          this.seenLines.set(line, seen);
        }
        if (seen.tasks.size < TASKS_COUNTED_MAX) seen.tasks.add(task);
        if (!gave?.has(line)) seen.quiet = true;
        if (!seen.quiet || !(seen.tasks.has(task) || seen.tasks.size >= TASKS_COUNTED_MAX)) settled = false;
      }
      if (settled) {
        if (settledFor) settledFor.add(task);
        else this.settled.set(lines, new Set([task]));
      }
    }
  }

  /**
   * Settles the lines kept: a line that gave findings and stands in the prompts of TEMPLATE_TASKS or
   * more different tasks, in some of which it names nothing of the task (an instruction, not a leak
   * written into the prompts of one place's tasks), becomes one template finding where it first
   * stood; the others' findings stay.
   */
  finish(): void {
    const templates = new Map<string, Finding>();
    for (const [line, found] of this.byLine) {
      const seen = this.seenLines.get(line);
      if (!seen?.quiet) continue;
      const tasks = new Set([...seen.tasks, ...found.tasks]);
      if (tasks.size >= TEMPLATE_TASKS) templates.set(line, this.templateFinding(line, found, tasks.size));
    }
    if (templates.size === 0) return;
    const kept: Finding[] = [];
    const placed = new Set<Finding>();
    for (const f of this.findings) {
      const line = this.lineOfFinding.get(f);
      const template = line === undefined ? undefined : templates.get(line);
      if (!template) kept.push(f);
      else if (!placed.has(template)) {
        placed.add(template);
        kept.push(template);
      }
    }
    this.findings.splice(0, this.findings.length, ...kept);
  }

  private templateFinding(line: string, seen: LineFindings, tasks: number): Finding {
    const { first } = seen;
    const id = findingId('template', '', '', line);
    return {
      id,
      severity: 'low',
      kind: 'template',
      source: first.source,
      prompt_id: first.prompt_id,
      ...(first.episode_id !== undefined ? { episode_id: first.episode_id } : {}),
      ...(first.turn !== undefined ? { turn: first.turn } : {}),
      message: first.message,
      ...(first.text_index !== undefined ? { text_index: first.text_index } : {}),
      span: seen.span,
      text: line,
      context: line,
      evidence: `in the prompts of ${tasks}${tasks >= TASKS_COUNTED_MAX ? ' or more' : ''} different tasks; names ${[...seen.names].join(', ')}`,
      baselined: false,
    };
  }
}

function promptKey(source: string, promptId: string): string {
  return `${source}\0${promptId}`;
}

function fileSources(sources: AuditSources, onSkipped?: (entry: SkippedEntry) => void): FileSource[] {
  const found: FileSource[] = [];
  const add = (file: string, read: Reader) => found.push({ file, source: sourceName(file), read, bytes: sizeOf(file) });
  for (const path of sources.episodes ?? []) for (const file of runTreeFiles(path, onSkipped)) add(file, readEpisodeFile);
  for (const file of sources.prompts ?? []) add(file, readPromptFile);
  for (const file of sources.traces ?? []) add(file, readTraceFile);
  for (const file of sources.completions ?? []) add(file, readCompletionsFile);
  return found;
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
