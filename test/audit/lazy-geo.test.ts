/**
 * The audit loads the 10m outlines only when country-coder cannot settle whether a pin explains a
 * country, and the major cities only when no pin lies near a town the prompt names.
 */
import { describe, expect, it, vi } from 'vitest';

const outlineCalls = vi.hoisted(() => ({ count: 0 }));
const cityCalls = vi.hoisted(() => ({ count: 0 }));

vi.mock('../../src/geo/cities.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/geo/cities.js')>();
  return {
    ...actual,
    nearestCity: (...args: Parameters<typeof actual.nearestCity>) => {
      cityCalls.count++;
      return actual.nearestCity(...args);
    },
  };
});

vi.mock('../../src/geo/outlines.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/geo/outlines.js')>();
  return {
    ...actual,
    outlineAt: (...args: Parameters<typeof actual.outlineAt>) => {
      outlineCalls.count++;
      return actual.outlineAt(...args);
    },
  };
});

const { auditPrompt } = await import('../../src/audit/detect.js');
import type { AuditPrompt, AuditTask } from '../../src/audit/types.js';

const task: AuditTask = { truth: { lat: 43.3209, lon: 21.8958 }, country: 'Republic of Serbia', identity: [{ kind: 'task_id', value: 'eval-00042' }] };

function prompt(pins: { lat: number; lon: number }[], feedback = 'Pin 1 is in Serbia.'): AuditPrompt {
  return {
    source: 'test',
    promptId: 'p',
    task: { taskId: 'eval-00042' },
    messages: [{ author: 'harness', role: 'tool', texts: [feedback], images: [] }],
    agentPoints: pins,
  };
}

describe('pins explaining the true country', () => {
  it('a pin country-coder puts in the country explains it without the outlines', () => {
    expect(auditPrompt(prompt([{ lat: 44.8176, lon: 20.4569 }]), task)).toEqual([]);
    expect(outlineCalls.count).toBe(0);
  });

  it('a pin elsewhere is looked up in the outlines too, and the country is a finding', () => {
    const findings = auditPrompt(prompt([{ lat: 43.4, lon: 22.9 }]), task);
    expect(findings.map((f) => [f.kind, f.text])).toEqual([['country', 'Serbia']]);
    expect(outlineCalls.count).toBeGreaterThan(0);
  });
});

describe('pins explaining a town near the truth', () => {
  it('a pin within 50 km of the town explains it without the major cities, whatever pins came before', () => {
    const belgrade = { lat: 44.8176, lon: 20.4569 };
    expect(auditPrompt(prompt([belgrade, { lat: 43.35, lon: 21.95 }], 'Pin 2 is in Serbia, 3 km N of Niš.'), task)).toEqual([]);
    expect(cityCalls.count).toBe(0);
  });
});
