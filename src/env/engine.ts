/**
 * The episode engine: one session's episode. The rules (episode-rules.ts) decide what an action
 * does; this shell validates input, draws through the renderer seams, commits, and answers in the
 * wire forms of episode-wire.ts.
 *
 * Guarantees every transport relies on:
 * - an error (EnvError) changes nothing: the next state is committed only after its image is drawn;
 * - calls on one episode never interleave: reset and step run one at a time in arrival order, so
 *   a client may pipeline;
 * - the truth reaches a renderer only through renderReveal, after scoring.
 */
import { randomUUID } from 'node:crypto';
import { truthOf, type Task } from '../core/tasks.js';
import { parseAction, parseResetRequest } from './actions.js';
import { defaultSplit } from './task-splits.js';
import { applyAction, startEpisode, type Drawing, type EpisodeData } from './episode-rules.js';
import { finalMetadata, observationOf, stateOf, stepResultOf, turnMetadata, type EpisodeState, type Image } from './episode-wire.js';
import * as say from './feedback.js';
import { MissingPanoramaError } from '../tasks/panoramas.js';
import { DEFAULT_ENGINE_CONFIG, type EngineConfig } from './engine-config.js';
import { EnvError, type MapPin, type MapRenderer, type ResetRequest, type StepResult, type ViewRenderer } from './types.js';

export type { EpisodeState } from './episode-wire.js';

export interface EpisodeDeps {
  splits: ReadonlyMap<string, readonly Task[]>;
  views: ViewRenderer;
  maps: MapRenderer;
  /** Defaults fill whatever is left out. */
  config?: Partial<EngineConfig>;
  /** Picks the task of a reset that names neither index nor seed (default Math.random). */
  random?: () => number;
  /** Operator log: what is missing when an episode cannot start or move (never sent to a model). */
  log?: (line: string) => void;
}

export class Episode {
  readonly config: Readonly<EngineConfig>;
  private data: EpisodeData | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: EpisodeDeps) {
    this.config = Object.freeze(checkConfig({ ...DEFAULT_ENGINE_CONFIG, ...deps.config }));
  }

  /** True once the episode has been scored or ran out of actions (false before the first reset). */
  get done(): boolean {
    return this.data !== null && this.data.outcome !== null;
  }

  /**
   * Starts a new episode, ending any current one. Split: the requested one, else `train` when
   * served, else the first. Task: `index` exactly, else `seed` modulo the split's size, else a
   * random one (as a gym environment does without a seed; pass index or seed to reproduce).
   */
  reset(request: ResetRequest = {}): Promise<StepResult> {
    return this.serialised(() => this.start(request));
  }

  /** One wire action; throws EnvError VALIDATION_ERROR (nothing spent) or EXECUTION_ERROR (no episode yet). */
  step(action: unknown): Promise<StepResult> {
    return this.serialised(() => this.act(action));
  }

  /** The truth-free state; EXECUTION_ERROR before the first reset. */
  state(): EpisodeState {
    return stateOf(this.current(), this.config);
  }

  private serialised<T>(run: () => Promise<T>): Promise<T> {
    const result = this.queue.then(run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private current(): EpisodeData {
    if (!this.data) throw new EnvError('EXECUTION_ERROR', 'no episode yet: send reset first');
    return this.data;
  }

  private async start(raw: ResetRequest): Promise<StepResult> {
    const request = parseResetRequest(raw);
    const [split, tasks] = this.chooseSplit(request.split);
    const index = this.chooseIndex(split, tasks.length, request);
    const data = startEpisode({ episodeId: request.episode_id ?? randomUUID(), split, index, task: tasks[index]! });
    const image = await this.draw(data, { kind: 'view' }, true);
    this.data = data;
    return stepResultOf(
      observationOf(data, this.config, {
        feedback: say.episodeStarted(this.config.maxSteps),
        image,
        prompt: say.openingPrompt(this.config.maxSteps, this.config.freeMeasures),
        movedMeters: 0,
      }),
      null,
      false,
      turnMetadata(data, this.config, 'reset', 0),
    );
  }

  private async act(raw: unknown): Promise<StepResult> {
    // Validation comes first, so a bad action is a VALIDATION_ERROR whatever the episode's state.
    const action = parseAction(raw);
    const data = this.current();
    if (data.outcome) {
      return stepResultOf(
        observationOf(data, this.config, { feedback: say.episodeOverFeedback(), image: null, prompt: null, movedMeters: 0 }),
        null,
        true,
        { ...turnMetadata(data, this.config, action.op, 0), refused: true },
      );
    }
    const turn = applyAction(data, action, this.config);
    const image = await this.draw(turn.next, turn.drawing);
    this.data = turn.next;
    const outcome = turn.next.outcome;
    return stepResultOf(
      observationOf(turn.next, this.config, { feedback: turn.feedback, image, prompt: null, movedMeters: turn.movedMeters }),
      outcome ? outcome.reward : null,
      outcome !== null,
      (outcome ? finalMetadata : turnMetadata)(turn.next, this.config, action.op, turn.costHundredths),
    );
  }

  private chooseSplit(requested: string | undefined): [string, readonly Task[]] {
    const { splits } = this.deps;
    const names = [...splits.keys()];
    const name = requested ?? defaultSplit(splits);
    if (name === undefined) throw new EnvError('VALIDATION_ERROR', 'the environment serves no splits');
    const tasks = splits.get(name);
    if (!tasks) throw new EnvError('VALIDATION_ERROR', `unknown split "${name}": expected one of ${names.join(', ')}`);
    if (tasks.length === 0) throw new EnvError('VALIDATION_ERROR', `split "${name}" has no tasks`);
    return [name, tasks];
  }

  private chooseIndex(split: string, size: number, request: ResetRequest): number {
    if (request.index !== undefined) {
      if (request.index >= size) {
        throw new EnvError('VALIDATION_ERROR', `index ${request.index} is out of range: split "${split}" has tasks 0 to ${size - 1}`);
      }
      return request.index;
    }
    if (request.seed !== undefined) return ((request.seed % size) + size) % size;
    return Math.min(size - 1, Math.floor((this.deps.random ?? Math.random)() * size));
  }

  private async draw(data: EpisodeData, drawing: Drawing, starting = false): Promise<Image | null> {
    const pins: MapPin[] = data.pins.map(({ index, lat, lon }) => ({ index, lat, lon }));
    try {
      switch (drawing.kind) {
        case 'none':
          return null;
        case 'view': {
          const frame = data.task.frames[data.frameIndex]!;
          const pano = { imageId: frame.image_id, compassAngle: frame.compass_angle };
          return { kind: 'view', bytes: await this.deps.views.renderView(pano, data.camera, this.config.viewSizePx) };
        }
        case 'map':
          return {
            kind: 'map',
            bytes: await this.deps.maps.renderMap({
              centerLat: drawing.centerLat,
              centerLon: drawing.centerLon,
              spanDeg: drawing.spanDeg,
              pins,
            }),
          };
        case 'reveal':
          return {
            kind: 'map',
            bytes: await this.deps.maps.renderReveal({ guess: data.outcome?.guess ?? null, truth: truthOf(data.task), pins }),
          };
      }
    } catch (err) {
      if (err instanceof MissingPanoramaError) throw this.missing(data, err, starting);
      // Renderer messages can name image files (identity), so the agent gets a plain one; the
      // original stays on `cause` for the server's log.
      const what = drawing.kind === 'view' ? 'view' : 'map';
      const error = new EnvError('EXECUTION_ERROR', `could not draw the ${what}; nothing changed, try again`);
      error.cause = err;
      throw error;
    }
  }

  /**
   * A missing panorama, logged in full for the operator. Starting, the reset's caller (a harness or
   * the CLI, not a model) gets the same; moving, the agent gets no image id or path (identity).
   */
  private missing(data: EpisodeData, err: MissingPanoramaError, starting: boolean): EnvError {
    const where = `split ${data.split}, task ${data.index} (${data.task.task_id}), frame ${data.frameIndex}`;
    const detail = `${where}: ${err.message}`;
    this.deps.log?.(`geolab: ${starting ? 'cannot start' : 'cannot move'}: ${detail}`);
    const message = starting
      ? `cannot start ${detail}`
      : `the panorama of frame ${data.frameIndex} is missing from the server's cache (its log names the file); nothing changed`;
    const error = new EnvError('EXECUTION_ERROR', message);
    error.cause = err;
    return error;
  }
}

function checkConfig(config: EngineConfig): EngineConfig {
  const integerAtLeast = (name: keyof EngineConfig, min: number) => {
    const value = config[name];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
      throw new RangeError(`engine config ${name} must be an integer >= ${min}, got ${String(value)}`);
    }
  };
  integerAtLeast('maxSteps', 1);
  integerAtLeast('viewSizePx', 16);
  integerAtLeast('freeMeasures', 0);
  if (config.curve !== 'game' && config.curve !== 'mixture') {
    throw new RangeError(`engine config curve must be "game" or "mixture", got ${String(config.curve)}`);
  }
  if (config.mode !== 'subtract' && config.mode !== 'multiply') {
    throw new RangeError(`engine config mode must be "subtract" or "multiply", got ${String(config.mode)}`);
  }
  return config;
}
