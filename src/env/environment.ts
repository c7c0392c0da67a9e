/**
 * The embedded environment assembled: served splits, the panorama and map renderers, and fresh
 * episodes over them. The server, the embedded client and the bench all build it here.
 */
import type { Task } from '../core/tasks.js';
import type { PanoramaFetcher } from '../tasks/mapillary.js';
import { actionJsonSchema } from './actions.js';
import { DEFAULT_ENGINE_CONFIG, type EngineConfig } from './engine-config.js';
import { Episode } from './engine.js';
import { handleMcp } from './mcp.js';
import { MapPainter } from './render/map.js';
import { PanoramaRenderer } from './render/panorama.js';
import { PanoramaSource } from './render/panorama-source.js';
import type { ServedEnvironment } from './server.js';
import type { Splits } from './task-splits.js';

export interface EnvironmentOptions {
  splits: Splits;
  /** Where `<image_id>.jpg` panoramas are (and demo panoramas are drawn on first use). */
  panoramasDir: string;
  /** A split's own panorama cache (a task set's), instead of `panoramasDir`. */
  splitPanoramas?: ReadonlyMap<string, string>;
  /** Draw missing panoramas with the demo generator: of every served split (true) or of those named. */
  demo?: boolean | readonly string[];
  /** Fills a panorama cache miss (Mapillary); without one a missing panorama is an error. */
  fetcher?: PanoramaFetcher;
  /** Operator log (the server's stderr): what is missing when an episode cannot start or move. */
  log?: (line: string) => void;
  /** Render worker threads; default one per core (the server wants both cores). */
  workers?: number;
  cacheBytes?: number;
  config?: Partial<EngineConfig>;
  /**
   * Maps as the model gets them (a JPEG at most this many pixels a side) rather than full-size PNG:
   * for an environment only the agent in this process reads (a sweep's, src/eval/run/environments.ts).
   */
  modelImagePx?: number;
}

export interface Environment extends ServedEnvironment<Episode> {
  readonly config: Readonly<EngineConfig>;
  readonly views: PanoramaRenderer;
  readonly maps: MapPainter;
  close(): Promise<void>;
}

const NUMBER = { type: 'number' };
const NULLABLE_NUMBER = { type: ['number', 'null'] };

/** The observation's wire shape (docs/protocol.md), for GET /schema. */
const OBSERVATION_SCHEMA = {
  type: 'object',
  properties: {
    prompt: { type: ['string', 'null'] },
    image_base64: { type: ['string', 'null'], description: 'JPEG view or PNG map, base64 without a data: prefix' },
    image_kind: { enum: ['view', 'map', 'none'] },
    heading_deg: NUMBER,
    pitch_deg: NUMBER,
    fov_deg: NUMBER,
    moved_meters: NUMBER,
    total_moved_meters: NUMBER,
    can_move_forward: { type: 'boolean' },
    can_move_backward: { type: 'boolean' },
    available_tools: { type: 'array', items: { type: 'string' } },
    steps_remaining: { type: 'integer' },
    pins: {
      type: 'array',
      items: {
        type: 'object',
        properties: { index: { type: 'integer' }, lat: NUMBER, lon: NUMBER, label: { type: ['string', 'null'] }, description: { type: 'string' } },
      },
    },
    feedback: { type: 'string' },
    captured_at: { type: 'string' },
    distance_km: NULLABLE_NUMBER,
    score: NULLABLE_NUMBER,
    action_cost: NUMBER,
    true_lat: NULLABLE_NUMBER,
    true_lon: NULLABLE_NUMBER,
    parsed_ok: { type: ['boolean', 'null'] },
    metadata: { type: 'object', description: 'the same object as the metadata beside the observation' },
  },
} as const;

export function createEnvironment(options: EnvironmentOptions): Environment {
  const config: Readonly<EngineConfig> = { ...DEFAULT_ENGINE_CONFIG, ...options.config };
  const { demo } = options;
  const demoTasks: Task[] = [...options.splits]
    .filter(([name]) => demo === true || (Array.isArray(demo) && demo.includes(name)))
    .flatMap(([, tasks]) => tasks);
  const served = [...options.splits].map(([name, tasks]) => ({ tasks, dir: options.splitPanoramas?.get(name) }));
  const source = new PanoramaSource(options.panoramasDir, { demoTasks, served, fetcher: options.fetcher });
  const views = new PanoramaRenderer(source, {
    workers: options.workers ?? 2,
    cacheBytes: options.cacheBytes,
  });
  const maps = new MapPainter({ modelImagePx: options.modelImagePx });
  const { splits } = options;
  return {
    splits,
    config,
    views,
    maps,
    newEpisode: () => new Episode({ splits, views, maps, config, log: options.log }),
    mcp: (episode, request) => handleMcp(episode, request),
    schema: () => ({ action: actionJsonSchema(), observation: OBSERVATION_SCHEMA, state: { type: 'object' } }),
    metadata: () => ({
      name: 'geoguesser_env',
      implementation: 'geolab',
      description: 'GeoGuesser: look around a street-level panorama, walk, pin maps, and guess where it is.',
      splits: Object.fromEntries([...splits].map(([name, tasks]) => [name, tasks.length])),
      max_steps: config.maxSteps,
      view_size: config.viewSizePx,
      curve: config.curve,
      mode: config.mode,
      free_measures: config.freeMeasures,
      show_identity: config.showIdentity,
    }),
    close: () => views.close(),
  };
}
