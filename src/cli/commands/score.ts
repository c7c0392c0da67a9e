/** `geolab score`: one distance on one reward curve, the same words as the environment server. */
import { UsageError } from '../../core/errors.js';
import { scoreGuess, type Curve, type RewardMode } from '../../core/scoring.js';
import type { GlobalOptions } from '../options.js';
import { printJson, printLine, table } from '../output.js';

interface ScoreOptions extends GlobalOptions {
  distanceKm?: number;
  cost: number;
  curve: Curve;
  /** Unset unless typed: the reference curve has its own cost rule and refuses one. */
  mode?: RewardMode;
  guess: boolean;
}

export function scoreCommand(opts: ScoreOptions): void {
  if (opts.guess && opts.distanceKm === undefined) throw new UsageError('give --distance-km D, or --no-guess');
  if (!opts.guess && opts.distanceKm !== undefined) throw new UsageError('--no-guess and --distance-km exclude each other');
  if (opts.distanceKm !== undefined && opts.distanceKm < 0) throw new UsageError('--distance-km must be >= 0');
  if (opts.cost < 0) throw new UsageError('--cost must be >= 0');
  if (opts.curve === 'reference' && opts.mode !== undefined) {
    throw new UsageError('--mode applies to the game and mixture curves; the reference curve has its own cost rule (a capped multiplier)');
  }
  const mode = opts.mode ?? 'subtract';
  const result = scoreGuess({
    distanceKm: opts.guess ? (opts.distanceKm as number) : null,
    cost: opts.cost,
    curve: opts.curve,
    mode,
  });
  if (opts.json) return printJson(result);
  printLine(
    table([
      ['distance', result.distance_km === null ? 'no guess' : `${result.distance_km} km`],
      ['curve', `${result.curve}${result.curve === 'reference' ? '' : ` (${mode})`}`],
      ['score', result.score.toFixed(4)],
      ['cost', String(result.cost)],
      ['reward', result.reward.toFixed(4)],
      ['verdict', result.verdict ?? '-'],
      ['points', result.points],
    ]),
  );
}
