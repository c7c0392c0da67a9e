import { describe, expect, it } from 'vitest';
import { geolab } from '../helpers/cli.js';

function score(args: string[]) {
  const r = geolab(['score', ...args, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

describe('geolab score', () => {
  it('defaults to the game curve, subtract mode, no cost', () => {
    expect(score(['--distance-km', '1348.52'])).toEqual({
      distance_km: 1348.52,
      cost: 0,
      curve: 'game',
      score: expect.closeTo(0.4052, 4),
      reward: expect.closeTo(0.4052, 4),
      verdict: 'Right region',
      points: Math.round(5000 * Math.exp(-1348.52 / 1492.7)),
    });
  });

  it('gives the reference check value 0.5552 at 1348.52 km with cost 0.05', () => {
    expect(score(['--distance-km', '1348.52', '--cost', '0.05', '--curve', 'reference']).reward).toBeCloseTo(0.5552, 4);
  });

  it('refuses --mode with the reference curve, which has its own cost rule (exit 2, one line)', () => {
    for (const mode of ['multiply', 'subtract']) {
      const r = geolab(['score', '--distance-km', '1348.52', '--curve', 'reference', '--mode', mode]);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe('geolab: --mode applies to the game and mixture curves; the reference curve has its own cost rule (a capped multiplier)\n');
    }
  });

  it('charges cost by mode on the game curve', () => {
    expect(score(['--distance-km', '0', '--cost', '0.03']).reward).toBeCloseTo(0.97, 12);
    expect(score(['--distance-km', '0', '--cost', '0.8', '--mode', 'multiply']).reward).toBeCloseTo(0.5, 12);
  });

  it('scores a missing guess as zero with no verdict', () => {
    expect(score(['--no-guess', '--cost', '0.1'])).toMatchObject({ distance_km: null, score: 0, reward: 0, points: 0, verdict: null });
  });

  it('prints a readable table without --json', () => {
    const r = geolab(['score', '--distance-km', '10']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/verdict\s+Pinpoint/);
  });

  it('refuses bad usage with exit 2', () => {
    expect(geolab(['score']).code).toBe(2);
    expect(geolab(['score', '--distance-km', 'far']).stderr).toContain('--distance-km expects a number, got "far"');
    expect(geolab(['score', '--distance-km', '-3']).code).toBe(2);
    expect(geolab(['score', '--distance-km', '3', '--curve', 'cubic']).code).toBe(2);
  });
});
