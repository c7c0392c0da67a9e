/** The engine's settings and their defaults, apart from the engine so that the CLI can show them without loading it. */

export interface EngineConfig {
  /** Costed actions per episode. */
  maxSteps: number;
  /** Side of the square view images. */
  viewSizePx: number;
  /** The environment's reward curve (the reference curve is the harness's, never the environment's). */
  curve: 'game' | 'mixture';
  mode: 'subtract' | 'multiply';
  /** Put task identity into per-turn metadata and state (off by default: identity is leaky). */
  showIdentity: boolean;
  /** Measures that cost nothing before each further one costs 0.01 and a step. */
  freeMeasures: number;
}

export const DEFAULT_ENGINE_CONFIG: Readonly<EngineConfig> = Object.freeze({
  maxSteps: 24,
  viewSizePx: 640,
  curve: 'game',
  mode: 'subtract',
  showIdentity: false,
  freeMeasures: 24,
});
