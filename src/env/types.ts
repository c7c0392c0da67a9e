/**
 * The environment's contract in types (docs/protocol.md): actions, observations, the step result every
 * transport carries, and the renderer seams the episode engine draws through.
 */

export type ImageKind = 'view' | 'map' | 'none';

/** One flat action object with an `op` field (the wire form). Ranges are checked in actions.ts. */
export type Action =
  | { op: 'look'; heading_deg?: number; pitch_deg?: number; fov_deg?: number }
  | { op: 'pan'; delta_deg: number }
  | { op: 'zoom'; fov_deg: number }
  | { op: 'move'; direction?: 'forward' | 'backward'; meters?: number }
  | { op: 'pin'; lat: number; lon: number; label?: string; span_deg?: number }
  | { op: 'view_map'; lat: number; lon: number; span_deg?: number }
  | { op: 'measure'; lat_a: number; lon_a: number; lat_b: number; lon_b: number }
  | { op: 'list_pins' }
  | { op: 'clear_pins' }
  | { op: 'reverse_geocode'; lat: number; lon: number }
  | {
      op: 'guess';
      lat?: number;
      lon?: number;
      response?: string;
      country?: string;
      confidence?: number;
      reasoning?: string;
    };

export type Op = Action['op'];

export interface PinView {
  index: number;
  lat: number;
  lon: number;
  label: string | null;
  description: string;
}

/** The observation's wire fields (docs/protocol.md); truth fields are null until the episode is scored. */
export interface Observation {
  prompt: string | null;
  image_base64: string | null;
  image_kind: ImageKind;
  heading_deg: number;
  pitch_deg: number;
  fov_deg: number;
  moved_meters: number;
  total_moved_meters: number;
  can_move_forward: boolean;
  can_move_backward: boolean;
  available_tools: string[];
  steps_remaining: number;
  pins: PinView[];
  feedback: string;
  captured_at: string;
  distance_km: number | null;
  score: number | null;
  action_cost: number;
  true_lat: number | null;
  true_lon: number | null;
  parsed_ok: boolean | null;
  /** The turn's metadata again, for clients that read it inside the observation (docs/protocol.md). */
  metadata: Record<string, unknown>;
}

/** What reset and step answer with, on every transport. */
export interface StepResult {
  observation: Observation;
  /** Null on every non-terminal observation and on refusals after the end. */
  reward: number | null;
  done: boolean;
  metadata: Record<string, unknown>;
}

export interface ResetRequest {
  split?: string;
  index?: number;
  seed?: number;
  episode_id?: string;
}

/** Camera in true-north terms: heading 0 is north, pitch positive looks up. */
export interface Camera {
  headingDeg: number;
  pitchDeg: number;
  fovDeg: number;
}

export interface PanoramaRef {
  imageId: string;
  /** Degrees clockwise from north that the panorama's centre column faces. */
  compassAngle: number;
}

/** Draws what the agent sees at a camera: a square JPEG. */
export interface ViewRenderer {
  renderView(pano: PanoramaRef, camera: Camera, sizePx: number): Promise<Buffer>;
}

export interface MapPin {
  index: number;
  lat: number;
  lon: number;
}

/** Draws maps as PNG: around a point (no truth), and the reveal after scoring. */
export interface MapRenderer {
  renderMap(request: { centerLat: number; centerLon: number; spanDeg: number; pins: MapPin[] }): Promise<Buffer>;
  renderReveal(request: { guess: { lat: number; lon: number } | null; truth: { lat: number; lon: number }; pins: MapPin[] }): Promise<Buffer>;
}

/** Error codes of the wire protocol (docs/protocol.md). */
export type EnvErrorCode = 'INVALID_JSON' | 'UNKNOWN_TYPE' | 'VALIDATION_ERROR' | 'EXECUTION_ERROR' | 'CAPACITY_REACHED';

/** An error the environment answers with; it never changes or closes the session. */
export class EnvError extends Error {
  constructor(
    readonly code: EnvErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'EnvError';
  }
}
