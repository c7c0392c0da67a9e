/**
 * Episode records (schema v2, docs/formats.md) as prompts: one per played turn, from the turn's recorded
 * `messages` (geolab's runs: the whole request, images by sha256), or else the harness's `prompt`
 * text with the image the previous turn showed. The agent's points are those its earlier actions
 * named (pins, maps, measures, guesses), and the pins the environment reported back.
 * Files and run trees (`<root>/<run>/episodes.jsonl`, `pass-<p>/shard-<i>/episodes.jsonl`) are read
 * line by line; the workspace's episodes one at a time.
 */
import { isCompleted, parseEpisodeRecord, type EpisodeRecord, type Turn } from '../../core/episode.js';
import type { LatLon } from '../../core/geodesy.js';
import { InputError } from '../../core/errors.js';
import { pointsOfAction } from '../../env/action-facts.js';
import type { AuditMessage, AuditPrompt, TaskRef } from '../types.js';
import { atLine, jsonLines, type OnBytes } from './jsonl.js';
import { auditMessages, ImageFiles, type ImageStore } from './messages.js';

export interface EpisodeContext {
  source: string;
  line?: number;
  /** Where the record's image_path files are (the run's folder); null for the workspace. */
  files: ImageFiles | null;
  /** Images by sha256 (the workspace's image store); files besides the record otherwise. */
  store?: ImageStore;
  /** The task, when the caller knows it better than the record (the version a workspace episode played). */
  task?: TaskRef;
}

/** The prompts of one record, in turn order; a failed record has none. */
export function episodePrompts(record: EpisodeRecord, context: EpisodeContext): AuditPrompt[] {
  if (!isCompleted(record)) return [];
  const turns = [...record.turns].sort((a, b) => a.turn - b.turn);
  const store = context.store ?? imagesOfRecord(turns, context.files);
  const maxTurns = record.config?.max_turns ?? undefined;
  const task = context.task ?? (record.task.task_id ? { taskId: record.task.task_id } : { split: record.task.split, index: record.task.index });
  const agentPoints: LatLon[] = [];
  const prompts: AuditPrompt[] = [];
  let previous: Turn | undefined;
  turns.forEach((turn, i) => {
    const messages = messagesOf(turn, i, previous, { files: context.files, store });
    if (messages) {
      const budget = {
        ...(maxTurns !== undefined ? { turnsLeft: Math.max(0, maxTurns - turn.turn + 1) } : {}),
        ...(typeof previous?.steps_remaining === 'number' ? { stepsLeft: previous.steps_remaining } : {}),
      };
      prompts.push({
        source: context.source,
        promptId: `${record.episode_id}#${turn.turn}`,
        ...(context.line !== undefined ? { line: context.line } : {}),
        episodeId: record.episode_id,
        turn: turn.turn,
        task,
        messages,
        agentPoints: [...agentPoints],
        ...(Object.keys(budget).length ? { budget } : {}),
      });
    }
    agentPoints.push(...pointsOfAction(turn.action), ...pointsOfAction(turn.wire_action), ...(turn.pins ?? []).map(([lat, lon]) => ({ lat, lon })));
    previous = turn;
  });
  return prompts;
}

function messagesOf(turn: Turn, i: number, previous: Turn | undefined, sources: { files: ImageFiles | null; store: ImageStore }): AuditMessage[] | null {
  const recorded = (turn as Record<string, unknown>).messages;
  if (Array.isArray(recorded) && recorded.length > 0) return auditMessages(recorded, `turns[${i}].messages`, sources);
  if (typeof turn.prompt !== 'string' || turn.prompt === '') return null;
  // The harness sends the image the previous turn returned with this turn's prompt.
  const sha256 = previous?.image_sha256;
  const images = sha256 ? [{ ref: previous?.image_path ?? sha256, bytes: sources.store(sha256) }].filter((image) => image.bytes !== null) : [];
  return [{ author: 'harness', role: 'user', texts: [turn.prompt], images }];
}

/** A record's images by sha256: the files its turns' image_path name, beside the record. */
function imagesOfRecord(turns: readonly Turn[], files: ImageFiles | null): ImageStore {
  const paths = new Map<string, string>();
  for (const turn of turns) if (turn.image_sha256 && turn.image_path) paths.set(turn.image_sha256, turn.image_path);
  return (sha256) => {
    const path = paths.get(sha256);
    return path && files ? files.read(path) : null;
  };
}

export async function* readEpisodeFile(file: string, source: string, onBytes?: OnBytes): AsyncGenerator<AuditPrompt> {
  let files: ImageFiles | undefined;
  for await (const { line, value } of jsonLines(file, 'episode file', onBytes)) {
    files ??= ImageFiles.besides(file);
    const parsed = parseEpisodeRecord(value);
    if (!parsed.ok) {
      const [first] = parsed.issues;
      throw new InputError(`${first?.message ?? parsed.error}: expected a schema-v2 episode record`, { file, line, field: first?.path || undefined });
    }
    // The line as written: loose keys (the recorded messages) are kept.
    const record = value as EpisodeRecord;
    yield* atLine(file, line, () => episodePrompts(record, { source, line, files: files as ImageFiles }));
  }
}

