/**
 * The replay core on records the harness writes (no wire action, no frame index): what it asks the
 * renderers to draw. The real renderers are exercised end to end in episodes-compare-cli.test.ts;
 * here they note their requests and answer with bytes that name them.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { CompletedEpisode, Turn } from '../../src/core/episode.js';
import { TaskSchema } from '../../src/core/task-schema.js';
import { type Task } from '../../src/core/tasks.js';
import { lookupTask, replayEpisode, type Renderers } from '../../src/eval/replay.js';
import { MissingPanoramaError } from '../../src/tasks/panoramas.js';
import { makeTask } from '../helpers/fixtures.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** Three frames about 11 m apart going north; the episode starts at the first. */
const TASK: Task = TaskSchema.parse(
  makeTask(0, {
    frames: [0, 1, 2].map((i) => ({ image_id: `img${i}`, lat: 45 + i * 0.0001, lon: 7, compass_angle: 10 * i })),
  }),
);

function renderers(missing: string[] = []): Renderers & { calls: string[] } {
  const calls: string[] = [];
  const answer = (call: string) => {
    calls.push(call);
    return Promise.resolve(Buffer.from(call));
  };
  return {
    calls,
    viewSizePx: 640,
    views: {
      renderView: (pano, camera, size) => {
        if (missing.includes(pano.imageId)) return Promise.reject(new MissingPanoramaError(pano.imageId, `/cache/${pano.imageId}.jpg`));
        return answer(`view ${pano.imageId}@${pano.compassAngle} h${camera.headingDeg} p${camera.pitchDeg} f${camera.fovDeg} ${size}`);
      },
    },
    maps: {
      renderMap: (r) => answer(`map ${r.centerLat},${r.centerLon} ±${r.spanDeg} pins ${JSON.stringify(r.pins)}`),
      renderReveal: (r) => answer(`reveal ${JSON.stringify(r.guess)} ${JSON.stringify(r.truth)} pins ${r.pins.length}`),
    },
  };
}

const cam = (heading: number, fov = 90) => ({ heading_deg: heading, pitch_deg: 0, fov_deg: fov });

/** As the public harness records: harness actions only, cameras without a frame index. */
const TURNS: Turn[] = [
  { turn: 0, action: { action: 'reset' }, camera_after: cam(0), image_kind: 'view', image_sha256: sha('view img0@0 h0 p0 f90 640') },
  { turn: 1, action: { action: 'move', meters: 15 }, camera_after: cam(0), image_kind: 'view', image_sha256: sha('view img2@20 h0 p0 f90 640') },
  // Refused by the environment: geolab keeps the wire action, but nothing moved.
  { turn: 2, status: 'unparseable', wire_action: { op: 'move', direction: 'backward', meters: 50 }, image_kind: 'none' },
  { turn: 3, action: { action: 'look', heading_deg: 30, fov_deg: 50 }, camera_after: cam(30, 50), image_kind: 'view', image_sha256: sha('stale bytes') },
  { turn: 4, action: { action: 'pin', lat: 45.5, lon: 7.5 }, pins: [[45.5, 7.5]], image_kind: 'map', image_sha256: sha('map 45.5,7.5 ±7 pins [{"index":1,"lat":45.5,"lon":7.5}]') },
  { turn: 5, action: { action: 'guess', lat: 45.2, lon: 7.1 }, pins: [[45.5, 7.5]], image_kind: 'map', image_sha256: sha('reveal {"lat":45.2,"lon":7.1} {"lat":45,"lon":7} pins 1'), done: true },
];

const RECORD: CompletedEpisode = {
  schema_version: 2,
  episode_id: 'harness-1',
  task: { split: 'eval', index: 0, task_id: 'fx-00000' },
  turns: TURNS,
  outcome: { guess: [45.2, 7.1], distance_km: 22.3 },
};

const SPLITS = new Map([['eval', [TASK]]]);

describe('replayEpisode', () => {
  it('walks the frames the moves reach, fills action defaults, and checks every image-bearing turn', async () => {
    const r = renderers();
    const turns = await replayEpisode(RECORD, lookupTask(RECORD, SPLITS, 'the workspace'), r);
    expect(turns.map((t) => [t.turn, t.kind, t.status])).toEqual([
      [0, 'view', 'ok'],
      [1, 'view', 'ok'],
      [3, 'view', 'changed'],
      [4, 'map', 'ok'],
      [5, 'map', 'ok'],
    ]);
    // 15 m forward from frame 0 passes frame 1 (11 m) and stops at frame 2 (22 m); the refused move moves nothing.
    expect(r.calls[1]).toBe('view img2@20 h0 p0 f90 640');
    expect(r.calls[2]).toBe('view img2@20 h30 p0 f50 640');
    expect(turns[2]).toMatchObject({ recordedSha256: sha('stale bytes'), renderedSha256: sha('view img2@20 h30 p0 f50 640') });
  });

  it('says which panorama is missing, per turn, without calling it a change', async () => {
    const turns = await replayEpisode(RECORD, lookupTask(RECORD, SPLITS, 'the workspace'), renderers(['img2']));
    expect(turns.map((t) => t.status)).toEqual(['ok', 'cannot-render', 'cannot-render', 'ok', 'ok']);
    expect(turns[1]!.reason).toBe('panorama of image img2 is not in the cache (looked up /cache/img2.jpg): get it with `geolab panos fetch TASKS --panos DIR` (needs MAPILLARY_ACCESS_TOKEN), or point --panos at a cache that has it');
  });

  it('cannot draw anything for a task the workspace does not serve as recorded', async () => {
    const cases: [CompletedEpisode['task'], string][] = [
      [{ split: 'val', index: 0 }, 'split val is not in the workspace: import its task file with `geolab tasks import FILE --name val`'],
      [{ split: 'eval', index: 4 }, 'split eval of the workspace has no task 4 (it has 1)'],
      [{ split: 'eval', index: 0, task_id: 'other' }, 'task 0 of split eval is fx-00000 in the workspace, but the episode played other'],
    ];
    for (const [task, reason] of cases) {
      const record = { ...RECORD, task };
      const r = renderers();
      const turns = await replayEpisode(record, lookupTask(record, SPLITS, 'the workspace'), r);
      expect(turns.every((t) => t.status === 'cannot-render' && t.reason === reason)).toBe(true);
      expect(r.calls).toEqual([]);
    }
  });
});
