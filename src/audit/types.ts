/**
 * The audit's plain data (docs/audit.md): what one model request looked like, what is known about its
 * task, and what was found in it. Readers (workspace, episode files, prompt files, traces, parquet)
 * turn their input into AuditPrompts; the detector core turns an AuditPrompt and its AuditTask into
 * Findings; the reporters, the baseline and the TUI only ever see Findings.
 */
import type { LatLon } from '../core/geodesy.js';

/** Only content the environment or the harness wrote can leak; the model's own words never do. */
export type Author = 'harness' | 'model';

export interface AuditImage {
  /** How the prompt names the image: a sha256, a file path, or a data URL's first characters. */
  ref: string;
  /** The image's bytes when the reader could get them (null: referenced but not available). */
  bytes: Buffer | null;
}

export interface AuditMessage {
  author: Author;
  /** The chat role as written (system, user, tool, assistant). */
  role: string;
  /** Every text the message carries, in order (content parts, a tool's name, image URLs/paths). */
  texts: string[];
  images: AuditImage[];
  /** The model's tool calls, as sent (only model-authored messages have them). */
  toolCalls?: unknown[];
  /**
   * A tool result: the call of the agent's it answers (its name and the points it named). Only such
   * feedback names the places of those points (docs/audit.md, "Prompt shapes and baselines").
   */
  answers?: { name: string; points: LatLon[] };
}

/** How a prompt names its task: by task_id, or by split and index. */
/**
 * How a prompt names its task: by id, by split and index, or (a workspace episode on a task set) by
 * split and index in the version of the set it was played on (null: the set's first recorded
 * version; docs/splits.md, Versions).
 */
export type TaskRef = { taskId: string } | { split: string; index: number } | { split: string; index: number; version: string | null };

export interface AuditPrompt {
  /** Where the prompt came from: a file path, or `workspace`. */
  source: string;
  /** Stable within its source: `<episode_id>#<turn>` for episodes, the `id` of a prompt file line. */
  promptId: string;
  /** The 1-based line of the source file the prompt was read from, when it came from a line of one. */
  line?: number;
  episodeId?: string;
  turn?: number;
  task: TaskRef;
  messages: AuditMessage[];
  /** Points the agent chose itself before this request was sent (pins, maps, measures, guesses). */
  agentPoints: LatLon[];
  /** The budget the environment really had left when the request was sent, when known. */
  budget?: { stepsLeft?: number; turnsLeft?: number };
}

export type IdentityKind = 'task_id' | 'task_index' | 'sequence_id' | 'image_id' | 'creator_username' | 'creator_id' | 'checksum';

/**
 * What the audit knows about a task: the truth, its identity keys and its country. The truth is null
 * when only the task's identity is known (a remote environment serves no truth): then only identity,
 * image metadata and budget can be checked.
 */
export interface AuditTask {
  truth: LatLon | null;
  identity: { kind: IdentityKind; value: string }[];
  /** The task file's country name (Natural Earth ADMIN), when it has one. */
  country?: string;
  /** What the task's frames and meta say about their capture, when known. */
  capture?: CaptureFacts;
}

/** How a task's frames were captured: what a prompt must not give away beyond the month (docs/audit.md). */
export interface CaptureFacts {
  /** The frames' capture months ("YYYY-MM"), each once. */
  months: string[];
  /** The frames' compass angles in degrees, each once. */
  compassAngles: number[];
  /** meta.camera_make and meta.camera_model, when the task has them. */
  cameraMake?: string;
  cameraModel?: string;
}

export type Severity = 'high' | 'medium' | 'low';

export type FindingKind =
  | 'identity'
  | 'coordinates'
  | 'country'
  | 'subregion'
  | 'region'
  | 'city'
  | 'fingerprint'
  | 'capture_metadata'
  | 'image_metadata'
  | 'budget'
  | 'unknown_task'
  /** Text identical in the prompts of many tasks (an instruction template): reported once. */
  | 'template';

/** Where a mention stands in a prompt, what it says and why it matters: what findings and explanations share. */
export interface Mention {
  source: string;
  prompt_id: string;
  episode_id?: string;
  turn?: number;
  /** Index of the message in the prompt (-1 when the finding is about the prompt as a whole). */
  message: number;
  /** Index of the text within the message (its `texts`), for the span. */
  text_index?: number;
  /** Offsets in that text. */
  span: { start: number; end: number };
  /** The matched text itself. */
  text: string;
  /** The text around it (about 40 characters either side). */
  context: string;
  /** Why it is a leak, in words: "27.0 km from the truth", "the true country (Serbia), demonym"; for an explanation, which agent point explains it. */
  evidence: string;
}

export interface Finding extends Mention {
  /** Stable hash of (kind, source, prompt id, span text): survives re-runs. */
  id: string;
  severity: Severity;
  kind: FindingKind;
  /** Accepted in the baseline file. */
  baselined: boolean;
}

/**
 * A mention that would be a finding but for the agent's own points (a pin it placed in the true
 * country, the echo of its own coordinates): not a leak, kept so that a clean-looking prompt can
 * show why it was accepted ("the agent's point 44.8, 20.5 is in Republic of Serbia").
 */
export interface Explanation extends Mention {
  kind: 'coordinates' | 'country' | 'subregion' | 'region' | 'city';
}
