/**
 * `geolab episodes replay`: every image a recorded episode showed is drawn again from what the
 * record says produced it (the camera after the turn and the frame it stood at for a view; the
 * executed action and the pins for a map; guess, truth and pins for the reveal), through the
 * renderers the environment serves with, and its sha256 checked against the recorded one. A
 * changed renderer, view size or panorama cache shows up as `changed`.
 */
import { isFailed, type EpisodeRecord, type Turn } from '../core/episode.js';
import { truthOf, type Task } from '../core/tasks.js';
import { walk } from '../env/episode-rules.js';
import type { MapPin, MapRenderer, ViewRenderer } from '../env/types.js';
import { sha256Hex } from '../store/images.js';
import { MissingPanoramaError } from '../tasks/panoramas.js';
import { executedAction, type TurnAction } from './turn-action.js';

export type ReplayStatus = 'ok' | 'changed' | 'cannot-render';

export interface ReplayedTurn {
  turn: number;
  kind: 'view' | 'map';
  /** What was drawn again, in a few words: `view 90°, pitch 0°, fov 60°, frame 2 (img123)`. */
  drawn: string;
  status: ReplayStatus;
  recordedSha256: string;
  /** Absent when it could not be drawn. */
  renderedSha256?: string;
  /** Why it could not be drawn, and what to do about it. */
  reason?: string;
}

export interface Renderers {
  views: ViewRenderer;
  maps: MapRenderer;
  viewSizePx: number;
}

/**
 * The task an episode played, or why it cannot be replayed: the workspace must serve its split, and
 * the task at its index must be the one recorded (task ids, when recorded, must agree).
 */
export type TaskLookup = { ok: true; task: Task } | { ok: false; reason: string };

/** Replays every turn that recorded an image hash; turns without one have nothing to check. */
export async function replayEpisode(record: EpisodeRecord, lookup: TaskLookup, renderers: Renderers): Promise<ReplayedTurn[]> {
  const turns = (Array.isArray(record.turns) ? record.turns : []) as Turn[];
  const results: ReplayedTurn[] = [];
  let frameIndex = lookup.ok ? lookup.task.start_frame : 0;
  for (const turn of turns) {
    const action = executedAction(turn);
    const recordedFrame = turn.camera_after?.frame_index;
    // Records from servers that cannot say which frame the camera stands at are walked like the engine does.
    if (typeof recordedFrame === 'number') frameIndex = recordedFrame;
    else if (lookup.ok && action.ok && action.action.op === 'move') {
      frameIndex = walk(lookup.task.frames, frameIndex, action.action.direction, action.action.meters).frameIndex;
    }
    const sha = turn.image_sha256;
    const kind = turn.image_kind;
    if (!sha || (kind !== 'view' && kind !== 'map')) continue;
    const base = { turn: turn.turn, kind, recordedSha256: sha };
    if (!lookup.ok) {
      results.push({ ...base, drawn: kind, status: 'cannot-render', reason: lookup.reason });
      continue;
    }
    const drawing = kind === 'view' ? viewDrawing(turn, lookup.task, frameIndex, renderers) : mapDrawing(turn, action, record, lookup.task, renderers);
    if (!drawing.ok) {
      results.push({ ...base, drawn: kind, status: 'cannot-render', reason: drawing.reason });
      continue;
    }
    try {
      const rendered = sha256Hex(await drawing.draw());
      results.push({ ...base, drawn: drawing.drawn, status: rendered === sha ? 'ok' : 'changed', renderedSha256: rendered });
    } catch (err) {
      results.push({ ...base, drawn: drawing.drawn, status: 'cannot-render', reason: renderFailure(err) });
    }
  }
  return results;
}

type Drawing = { ok: true; drawn: string; draw: () => Promise<Buffer> } | { ok: false; reason: string };

function viewDrawing(turn: Turn, task: Task, frameIndex: number, { views, viewSizePx }: Renderers): Drawing {
  const camera = turn.camera_after ?? turn.camera_before;
  const [headingDeg, pitchDeg, fovDeg] = [camera?.heading_deg, camera?.pitch_deg, camera?.fov_deg];
  if (typeof headingDeg !== 'number' || typeof pitchDeg !== 'number' || typeof fovDeg !== 'number') {
    return { ok: false, reason: 'the turn recorded no camera (camera_after with heading_deg, pitch_deg, fov_deg)' };
  }
  const frame = task.frames[frameIndex];
  if (!frame) return { ok: false, reason: `frame ${frameIndex} is not a frame of task ${task.task_id} (it has ${task.frames.length})` };
  return {
    ok: true,
    drawn: `view ${headingDeg}°, pitch ${pitchDeg}°, fov ${fovDeg}°, frame ${frameIndex} (${frame.image_id})`,
    draw: () => views.renderView({ imageId: frame.image_id, compassAngle: frame.compass_angle }, { headingDeg, pitchDeg, fovDeg }, viewSizePx),
  };
}

function mapDrawing(turn: Turn, action: TurnAction, record: EpisodeRecord, task: Task, { maps }: Renderers): Drawing {
  if (!action.ok) return { ok: false, reason: action.reason };
  const pins: MapPin[] = (turn.pins ?? []).map(([lat, lon], i) => ({ index: i + 1, lat, lon }));
  const a = action.action;
  switch (a.op) {
    case 'pin':
    case 'view_map':
      return {
        ok: true,
        drawn: `map ${a.lat}, ${a.lon} ±${a.span_deg}°, ${pins.length} pin(s)`,
        draw: () => maps.renderMap({ centerLat: a.lat, centerLon: a.lon, spanDeg: a.span_deg, pins }),
      };
    case 'guess': {
      const guessed = isFailed(record) ? null : record.outcome.guess;
      const guess = guessed ? { lat: guessed[0], lon: guessed[1] } : null;
      return {
        ok: true,
        drawn: `reveal, guess ${guess ? `${guess.lat}, ${guess.lon}` : 'none'}, ${pins.length} pin(s)`,
        draw: () => maps.renderReveal({ guess, truth: truthOf(task), pins }),
      };
    }
    default:
      return { ok: false, reason: `a ${a.op} action draws no map` };
  }
}

function renderFailure(err: unknown): string {
  if (err instanceof MissingPanoramaError) return err.message;
  return `the renderer failed: ${(err as Error).message ?? String(err)}`;
}

/** Lookup of a record's task among served splits; `where` names them in messages. */
export function lookupTask(record: EpisodeRecord, splits: ReadonlyMap<string, readonly Task[]>, where: string): TaskLookup {
  const { split, index, task_id: taskId } = record.task;
  const tasks = splits.get(split);
  if (!tasks) {
    return { ok: false, reason: `split ${split} is not in ${where}: import its task file with \`geolab tasks import FILE --name ${split}\`` };
  }
  const task = tasks[index];
  if (!task) return { ok: false, reason: `split ${split} of ${where} has no task ${index} (it has ${tasks.length})` };
  if (taskId && task.task_id !== taskId) {
    return { ok: false, reason: `task ${index} of split ${split} is ${task.task_id} in ${where}, but the episode played ${taskId}` };
  }
  return { ok: true, task };
}
