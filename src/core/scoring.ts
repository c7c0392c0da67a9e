/**
 * The one scoring module (docs/scoring.md). Three curves that must never be mixed:
 * - game: what the environment rewards, exp(-d/1492.7) less the action cost;
 * - mixture: the training shape, half game decay and half a wide 5000 km decay;
 * - reference: what public boards report, the mixture with a capped multiplicative cost.
 */

/** GeoGuessr's world-map decay: points = round(5000 exp(-d / 1492.7)). */
export const GAME_DECAY_KM = 1492.7;
/** The wide half of the training mixture: keeps a gradient for guesses thousands of km off. */
export const MIXTURE_WIDE_DECAY_KM = 5000;
/** The reference curve never lets the cost take more than a fifth of the score. */
export const REFERENCE_COST_CAP = 0.2;
/** In multiply mode a spendthrift episode keeps at least half its score. */
export const MULTIPLY_COST_CAP = 0.5;
/** Hierarchical credit for naming the right country (docs/scoring.md). */
export const COUNTRY_BONUS = 0.15;
/** Hierarchical credit for the right Natural Earth subregion; stacks with the country bonus. */
export const SUBREGION_BONUS = 0.1;
/** GeoGuessr's points for a perfect round. */
export const MAX_POINTS = 5000;

export const CURVES = ['game', 'mixture', 'reference'] as const;
export type Curve = (typeof CURVES)[number];

/** How the game and mixture curves charge the action cost. */
export const REWARD_MODES = ['subtract', 'multiply'] as const;
export type RewardMode = (typeof REWARD_MODES)[number];

export type Verdict = 'Perfect' | 'Pinpoint' | 'Close' | 'Right region' | 'Wrong continent';

/** Verdicts from best to worst; a distance gets the first whose `belowKm` it is under. */
export const VERDICTS: readonly { readonly verdict: Verdict; readonly belowKm: number }[] = [
  { verdict: 'Perfect', belowKm: 0.025 },
  { verdict: 'Pinpoint', belowKm: 25 },
  { verdict: 'Close', belowKm: 200 },
  { verdict: 'Right region', belowKm: 1500 },
  { verdict: 'Wrong continent', belowKm: Infinity },
];

/** Whether the guess landed in the truth's country and Natural Earth subregion (null: unknown). */
export interface HierarchyHits {
  countryHit?: boolean | null;
  subregionHit?: boolean | null;
}

/** Game-curve score before cost and clipping: exp(-d / 1492.7), 1 at the truth. */
export function gameScore(distanceKm: number): number {
  requireDistanceKm(distanceKm);
  return Math.exp(-distanceKm / GAME_DECAY_KM);
}

/** Training mixture before cost and clipping: 0.5 exp(-d / 1492.7) + 0.5 exp(-d / 5000). */
export function mixtureScore(distanceKm: number): number {
  requireDistanceKm(distanceKm);
  return 0.5 * Math.exp(-distanceKm / GAME_DECAY_KM) + 0.5 * Math.exp(-distanceKm / MIXTURE_WIDE_DECAY_KM);
}

/** Optional hierarchical credit, added to a raw score before the min(1, .) clip. */
export function hierarchyBonus(hits: HierarchyHits): number {
  return (hits.countryHit ? COUNTRY_BONUS : 0) + (hits.subregionHit ? SUBREGION_BONUS : 0);
}

/**
 * The game and mixture curves' reward: the score clipped to 1, then the cost charged by `mode`.
 * Subtract can reach 0 (the "cliff"); multiply never takes more than half.
 */
export function rewardAfterCost(score: number, cost: number, mode: RewardMode): number {
  requireCost(cost);
  const clipped = Math.min(1, score);
  return mode === 'subtract'
    ? Math.max(0, clipped - cost)
    : clipped * (1 - Math.min(cost, MULTIPLY_COST_CAP));
}

/**
 * The reference curve boards report: 0 without a usable guess, else
 * min(1, mixture + bonus) * (1 - min(max(cost, 0), 0.2)). Negative costs are rejected rather than
 * clamped, so the published max(cost, 0) has nothing to do here.
 */
export function referenceReward(distanceKm: number | null, cost: number, hits: HierarchyHits = {}): number {
  requireCost(cost);
  if (distanceKm === null) return 0;
  return Math.min(1, mixtureScore(distanceKm) + hierarchyBonus(hits)) * (1 - Math.min(cost, REFERENCE_COST_CAP));
}

/** GeoGuessr points, 0..5000, always on the game decay whatever curve is being reported. */
export function points(distanceKm: number): number {
  return Math.round(MAX_POINTS * gameScore(distanceKm));
}

export function verdictFor(distanceKm: number): Verdict {
  requireDistanceKm(distanceKm);
  // The last entry is below Infinity, so the search always finds one.
  return VERDICTS.find((v) => distanceKm < v.belowKm)!.verdict;
}

/**
 * "Floored at zero" (env_floor): the game-curve reward is exactly 0, from a guess past the cliff
 * (about 3,000+ km at typical costs) or from no guess at all. Not the same number as `noGuess`.
 */
export function envFloor(gameReward: number): boolean {
  return gameReward === 0;
}

/** No usable guess at all (unparseable, forced empty, out of actions): there is no distance. */
export function noGuess(distanceKm: number | null | undefined): boolean {
  return distanceKm === null || distanceKm === undefined;
}

export interface ScoreGuessInput extends HierarchyHits {
  /** Great-circle km from guess to truth; null when there was no usable guess. */
  distanceKm: number | null;
  cost?: number;
  curve?: Curve;
  /** Ignored by the reference curve, which has its own cost rule. */
  mode?: RewardMode;
}

/** The `geolab score` result; snake_case because it is printed as JSON next to episode records. */
export interface ScoredGuess {
  distance_km: number | null;
  cost: number;
  curve: Curve;
  /** min(1, s + bonus), before cost. */
  score: number;
  /** After cost, by the curve's own rule. */
  reward: number;
  verdict: Verdict | null;
  points: number;
}

/** The single entry point behind `geolab score`. Throws RangeError on a value it cannot score. */
export function scoreGuess(input: ScoreGuessInput): ScoredGuess {
  const { distanceKm, cost = 0, curve = 'game', mode = 'subtract' } = input;
  requireCost(cost);
  if (!CURVES.includes(curve)) throw new RangeError(`unknown curve "${curve}": expected ${CURVES.join(', ')}`);
  if (!REWARD_MODES.includes(mode)) {
    throw new RangeError(`unknown reward mode "${mode}": expected ${REWARD_MODES.join(', ')}`);
  }
  if (distanceKm === null) return { distance_km: null, cost, curve, score: 0, reward: 0, verdict: null, points: 0 };

  const raw = curve === 'game' ? gameScore(distanceKm) : mixtureScore(distanceKm);
  const score = Math.min(1, raw + hierarchyBonus(input));
  const reward =
    curve === 'reference' ? referenceReward(distanceKm, cost, input) : rewardAfterCost(score, cost, mode);
  return { distance_km: distanceKm, cost, curve, score, reward, verdict: verdictFor(distanceKm), points: points(distanceKm) };
}

function requireDistanceKm(distanceKm: number): void {
  if (!Number.isFinite(distanceKm) || distanceKm < 0) {
    throw new RangeError(`distance must be a finite number of km >= 0, got ${distanceKm}`);
  }
}

function requireCost(cost: number): void {
  if (!Number.isFinite(cost) || cost < 0) {
    throw new RangeError(`cost must be a finite number >= 0, got ${cost}`);
  }
}
