import { describe, expect, it } from 'vitest';
import {
  COUNTRY_BONUS,
  GAME_DECAY_KM,
  MIXTURE_WIDE_DECAY_KM,
  MULTIPLY_COST_CAP,
  REFERENCE_COST_CAP,
  SUBREGION_BONUS,
  VERDICTS,
  envFloor,
  gameScore,
  hierarchyBonus,
  mixtureScore,
  noGuess,
  points,
  referenceReward,
  rewardAfterCost,
  scoreGuess,
  verdictFor,
} from '../../src/core/scoring.js';

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

describe('constants', () => {
  it('carries the published values', () => {
    expect(GAME_DECAY_KM).toBe(1492.7);
    expect(MIXTURE_WIDE_DECAY_KM).toBe(5000);
    expect(REFERENCE_COST_CAP).toBe(0.2);
    expect(MULTIPLY_COST_CAP).toBe(0.5);
    expect(COUNTRY_BONUS).toBe(0.15);
    expect(SUBREGION_BONUS).toBe(0.1);
  });
});

describe('curves', () => {
  it('matches the check values of docs/scoring.md at d = 1348.52 km', () => {
    expect(round4(referenceReward(1348.52, 0.05))).toBe(0.5552);
    expect(round4(gameScore(1348.52))).toBe(0.4052);
    expect(round4(scoreGuess({ distanceKm: 1348.52, cost: 0.05, curve: 'reference' }).reward)).toBe(0.5552);
    expect(round4(scoreGuess({ distanceKm: 1348.52 }).score)).toBe(0.4052);
  });

  it('is 1 at the truth and decays by e at one decay length', () => {
    expect(gameScore(0)).toBe(1);
    expect(mixtureScore(0)).toBe(1);
    expect(gameScore(GAME_DECAY_KM)).toBeCloseTo(Math.exp(-1), 12);
    expect(mixtureScore(5000)).toBeCloseTo(0.5 * Math.exp(-5000 / 1492.7) + 0.5 * Math.exp(-1), 12);
  });

  it('keeps the mixture above the game curve far away (the wide half)', () => {
    expect(gameScore(10_000)).toBeLessThan(0.002);
    expect(mixtureScore(10_000)).toBeGreaterThan(0.06);
  });

  it('rejects negative, NaN and infinite distances', () => {
    for (const bad of [-1, NaN, Infinity]) {
      expect(() => gameScore(bad)).toThrow(RangeError);
      expect(() => mixtureScore(bad)).toThrow(/distance must be a finite number of km >= 0/);
    }
  });
});

describe('rewardAfterCost', () => {
  it('subtracts and floors at zero', () => {
    expect(rewardAfterCost(0.5, 0.2, 'subtract')).toBeCloseTo(0.3, 12);
    expect(rewardAfterCost(0.1, 0.2, 'subtract')).toBe(0);
  });

  it('clips the score to 1 before charging', () => {
    expect(rewardAfterCost(1.2, 0.1, 'subtract')).toBeCloseTo(0.9, 12);
    expect(rewardAfterCost(1.2, 0.1, 'multiply')).toBeCloseTo(0.9, 12);
  });

  it('caps the cost at 0.5 in multiply mode', () => {
    expect(rewardAfterCost(0.8, 0.25, 'multiply')).toBeCloseTo(0.6, 12);
    expect(rewardAfterCost(0.8, 0.5, 'multiply')).toBeCloseTo(0.4, 12);
    expect(rewardAfterCost(0.8, 3, 'multiply')).toBeCloseTo(0.4, 12);
  });

  it('rejects a negative or NaN cost', () => {
    expect(() => rewardAfterCost(0.5, -0.01, 'subtract')).toThrow(/cost must be a finite number >= 0/);
    expect(() => rewardAfterCost(0.5, NaN, 'multiply')).toThrow(RangeError);
  });
});

describe('referenceReward', () => {
  it('is 0 without a usable guess, whatever the cost', () => {
    expect(referenceReward(null, 0)).toBe(0);
    expect(referenceReward(null, 0.3)).toBe(0);
  });

  it('caps the cost at 0.2', () => {
    expect(referenceReward(0, 0.2)).toBeCloseTo(0.8, 12);
    expect(referenceReward(0, 5)).toBeCloseTo(0.8, 12);
    expect(referenceReward(0, 0.1)).toBeCloseTo(0.9, 12);
  });

  it('takes the hierarchical bonus before the clip', () => {
    const plain = mixtureScore(3000);
    expect(referenceReward(3000, 0, { countryHit: true })).toBeCloseTo(plain + 0.15, 12);
    expect(referenceReward(10, 0, { countryHit: true, subregionHit: true })).toBe(1);
  });
});

describe('hierarchyBonus', () => {
  it('adds 0.15 for the country, 0.10 for the subregion, 0.25 for both', () => {
    expect(hierarchyBonus({})).toBe(0);
    expect(hierarchyBonus({ countryHit: true })).toBe(0.15);
    expect(hierarchyBonus({ subregionHit: true })).toBe(0.1);
    expect(hierarchyBonus({ countryHit: true, subregionHit: true })).toBeCloseTo(0.25, 12);
    expect(hierarchyBonus({ countryHit: null, subregionHit: false })).toBe(0);
  });
});

describe('points', () => {
  it('rounds 5000 exp(-d / 1492.7)', () => {
    expect(points(0)).toBe(5000);
    expect(points(1348.52)).toBe(2026);
    expect(points(GAME_DECAY_KM)).toBe(Math.round(5000 / Math.E));
    expect(points(20_000)).toBe(0);
  });
});

describe('verdicts', () => {
  it('lists thresholds from best to worst, ending unbounded', () => {
    expect(VERDICTS.map((v) => [v.verdict, v.belowKm])).toEqual([
      ['Perfect', 0.025],
      ['Pinpoint', 25],
      ['Close', 200],
      ['Right region', 1500],
      ['Wrong continent', Infinity],
    ]);
  });

  it('uses strict upper bounds', () => {
    expect(verdictFor(0)).toBe('Perfect');
    expect(verdictFor(0.0249)).toBe('Perfect');
    expect(verdictFor(0.025)).toBe('Pinpoint');
    expect(verdictFor(24.99)).toBe('Pinpoint');
    expect(verdictFor(25)).toBe('Close');
    expect(verdictFor(199.9)).toBe('Close');
    expect(verdictFor(200)).toBe('Right region');
    expect(verdictFor(1499.9)).toBe('Right region');
    expect(verdictFor(1500)).toBe('Wrong continent');
    expect(verdictFor(20_000)).toBe('Wrong continent');
  });

  it('rejects a negative distance', () => {
    expect(() => verdictFor(-0.1)).toThrow(RangeError);
  });
});

describe('envFloor and noGuess', () => {
  it('tells a guess past the cliff from no guess at all', () => {
    const pastCliff = scoreGuess({ distanceKm: 6000, cost: 0.05 });
    expect(pastCliff.reward).toBe(0);
    expect(envFloor(pastCliff.reward)).toBe(true);
    expect(noGuess(pastCliff.distance_km)).toBe(false);

    const none = scoreGuess({ distanceKm: null, cost: 0.05 });
    expect(envFloor(none.reward)).toBe(true);
    expect(noGuess(none.distance_km)).toBe(true);
    expect(noGuess(undefined)).toBe(true);
  });

  it('is not floored for any positive game reward', () => {
    expect(envFloor(1e-9)).toBe(false);
    expect(envFloor(scoreGuess({ distanceKm: 2000, cost: 0.05 }).reward)).toBe(false);
  });
});

describe('scoreGuess', () => {
  it('defaults to the game curve, subtract mode and no cost', () => {
    const r = scoreGuess({ distanceKm: 1348.52 });
    expect(r).toEqual({
      distance_km: 1348.52,
      cost: 0,
      curve: 'game',
      score: gameScore(1348.52),
      reward: gameScore(1348.52),
      verdict: 'Right region',
      points: 2026,
    });
  });

  it('scores a perfect guess after one look and one pin at exactly 0.97', () => {
    const r = scoreGuess({ distanceKm: 0, cost: 0.01 + 0.02 });
    expect(r.score).toBe(1);
    expect(Math.abs(r.reward - 0.97)).toBeLessThan(1e-12);
    expect(Math.round(r.reward * 1e12) / 1e12).toBe(0.97);
    expect(r.verdict).toBe('Perfect');
    expect(r.points).toBe(5000);
  });

  it('charges cost by mode on the game and mixture curves', () => {
    const d = 500;
    const sub = scoreGuess({ distanceKm: d, cost: 0.3, curve: 'mixture' });
    expect(sub.score).toBeCloseTo(mixtureScore(d), 12);
    expect(sub.reward).toBeCloseTo(mixtureScore(d) - 0.3, 12);
    const mul = scoreGuess({ distanceKm: d, cost: 0.7, mode: 'multiply' });
    expect(mul.reward).toBeCloseTo(gameScore(d) * 0.5, 12);
  });

  it('ignores the mode on the reference curve', () => {
    const a = scoreGuess({ distanceKm: 800, cost: 0.3, curve: 'reference', mode: 'subtract' });
    const b = scoreGuess({ distanceKm: 800, cost: 0.3, curve: 'reference', mode: 'multiply' });
    expect(a.reward).toBe(b.reward);
    expect(a.reward).toBeCloseTo(mixtureScore(800) * 0.8, 12);
    expect(a.score).toBeCloseTo(mixtureScore(800), 12);
  });

  it('gives game-curve points whatever the curve', () => {
    for (const curve of ['game', 'mixture', 'reference'] as const) {
      expect(scoreGuess({ distanceKm: 1348.52, curve }).points).toBe(2026);
    }
  });

  it('clips the bonus at 1 before charging the cost', () => {
    const r = scoreGuess({ distanceKm: 50, cost: 0.1, countryHit: true, subregionHit: true });
    expect(r.score).toBe(1);
    expect(r.reward).toBeCloseTo(0.9, 12);
    const partial = scoreGuess({ distanceKm: 2500, countryHit: true });
    expect(partial.score).toBeCloseTo(gameScore(2500) + 0.15, 12);
    expect(partial.points).toBe(points(2500));
  });

  it('scores no guess as 0 with no verdict, on every curve', () => {
    for (const curve of ['game', 'mixture', 'reference'] as const) {
      expect(scoreGuess({ distanceKm: null, cost: 0.04, curve, countryHit: true })).toEqual({
        distance_km: null,
        cost: 0.04,
        curve,
        score: 0,
        reward: 0,
        verdict: null,
        points: 0,
      });
    }
  });

  it('rejects values it cannot score with a clear message', () => {
    expect(() => scoreGuess({ distanceKm: -3 })).toThrow(/distance must be .* got -3/);
    expect(() => scoreGuess({ distanceKm: NaN })).toThrow(RangeError);
    expect(() => scoreGuess({ distanceKm: 10, cost: -0.1 })).toThrow(/cost must be .* got -0.1/);
    expect(() => scoreGuess({ distanceKm: null, cost: NaN })).toThrow(RangeError);
    expect(() => scoreGuess({ distanceKm: 10, curve: 'linear' as never })).toThrow(
      /unknown curve "linear": expected game, mixture, reference/,
    );
    expect(() => scoreGuess({ distanceKm: 10, mode: 'divide' as never })).toThrow(/unknown reward mode "divide"/);
  });
});
