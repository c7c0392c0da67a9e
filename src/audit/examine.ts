/**
 * One prompt through the detector core: its findings, the mentions its agent's points explain, and
 * what the run's template count reads of it (docs/audit.md, "Templates"), in a plain object a worker
 * thread can send (src/audit/parallel.ts). What depends on the prompts before it (repeats within an
 * episode, the template count itself) is the run's (src/audit/run.ts), in the sources' order.
 */
import { auditPromptAsync } from './detect.js';
import { AuditSession } from './session.js';
import type { TaskLookup } from './sources/tasks.js';
import type { AuditPrompt, Explanation, Finding, FindingKind, TaskRef } from './types.js';

/** What the run needs of one examined prompt. */
export interface Examined {
  source: string;
  promptId: string;
  line?: number;
  episodeId?: string;
  /** Whether the prompt is a turn of an episode or rollout. */
  turn: boolean;
  messages: number;
  images: number;
  task: TaskRef;
  found: Finding[];
  /** Per finding of `found`: the line it stands in, for the kinds a template can carry (else undefined). */
  where: (PlacedLine | undefined)[];
  explained: Explanation[];
  /**
   * With a known task: the place lines of each text the model did not write (placeLines). The same
   * text gives the same array, which the run uses as a key.
   */
  placeLines: (readonly string[])[];
}

/** A line of a text, trimmed, and its span in the text. */
export interface PlacedLine {
  line: string;
  span: { start: number; end: number };
}

/** Kinds a template's text can carry: places and coordinates, never a task's own keys. */
const TEMPLATE_KINDS: ReadonlySet<FindingKind> = new Set(['country', 'subregion', 'city', 'coordinates']);

/** Examines prompts with one session (the detectors' dictionaries, caches and compiled tasks). */
export class Examiner {
  private readonly session = new AuditSession();

  constructor(
    private readonly tasks: TaskLookup,
    private readonly radiusKm: number,
  ) {}

  async examine(prompt: AuditPrompt): Promise<Examined> {
    const explained: Explanation[] = [];
    const task = this.tasks.find(prompt.task);
    const found = await auditPromptAsync(prompt, task, { radiusKm: this.radiusKm, onExplained: (e) => explained.push(e), session: this.session });
    const where = found.map((f) => {
      const text = TEMPLATE_KINDS.has(f.kind) ? textOf(prompt, f) : undefined;
      return text === undefined ? undefined : lineAt(text, f.span.start);
    });
    const lines: (readonly string[])[] = [];
    let images = 0;
    for (const message of prompt.messages) {
      images += message.images.length;
      if (task && message.author !== 'model') for (const text of message.texts) lines.push(placeLines(text, this.session));
    }
    return {
      source: prompt.source,
      promptId: prompt.promptId,
      ...(prompt.line !== undefined ? { line: prompt.line } : {}),
      ...(prompt.episodeId !== undefined ? { episodeId: prompt.episodeId } : {}),
      turn: prompt.turn !== undefined,
      messages: prompt.messages.length,
      images,
      task: prompt.task,
      found,
      where,
      explained,
      placeLines: lines,
    };
  }
}

/** The text a finding's span stands in (none for a finding about a prompt or an image). */
function textOf(prompt: AuditPrompt, f: Finding): string | undefined {
  return f.text_index === undefined ? undefined : prompt.messages[f.message]?.texts[f.text_index];
}

/** The key a text's place lines are kept under on its scan. */
const PLACE_LINES = {};

/**
 * The lines of a text (trimmed, each once) that hold a word some dictionary knows or a coordinate:
 * those that may name a place. Worked out once per text and kept with its scan, since the same texts
 * come back in prompt after prompt.
 */
function placeLines(text: string, session: AuditSession): readonly string[] {
  const scan = session.scanText(text);
  let lines = scan.kept(PLACE_LINES) as string[] | undefined;
  if (!lines) {
    const found = new Set<string>();
    let last = -1;
    const add = (at: number) => {
      const start = text.lastIndexOf('\n', at - 1) + 1;
      if (start === last) return;
      last = start;
      found.add(lineAt(text, at).line);
    };
    for (let i = 0; i < scan.count; i++) add(scan.start(i));
    for (const p of scan.points) add(p.start);
    lines = [...found];
    scan.keep(PLACE_LINES, lines);
  }
  return lines;
}

/** The line of `text` around offset `at`, trimmed, and its span in the text. */
function lineAt(text: string, at: number): PlacedLine {
  const start = text.lastIndexOf('\n', at - 1) + 1;
  const newline = text.indexOf('\n', at);
  const raw = text.slice(start, newline < 0 ? text.length : newline);
  const line = raw.trim();
  const lead = start + raw.length - raw.trimStart().length;
  return { line, span: { start: lead, end: lead + line.length } };
}

