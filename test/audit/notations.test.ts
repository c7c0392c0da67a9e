/** Decimal-comma coordinates and the true country's ccTLD in a host name are leaks too. */
import { describe, expect, it } from 'vitest';
import { auditPrompt } from '../../src/audit/detect.js';
import { findCoordinates } from '../../src/audit/coordinates.js';
import type { AuditPrompt, AuditTask } from '../../src/audit/types.js';

const SERBIA: AuditTask = { truth: { lat: 43.3209, lon: 21.8958 }, country: 'Republic of Serbia', identity: [{ kind: 'task_id', value: 'eval-00042' }] };
const MONTENEGRO: AuditTask = { truth: { lat: 42.4304, lon: 19.2594 }, country: 'Montenegro', identity: [{ kind: 'task_id', value: 'eval-00043' }] };

function prompt(text: string, agentPoints: { lat: number; lon: number }[] = []): AuditPrompt {
  return { source: 'test', promptId: 'p', task: { taskId: 'eval-00042' }, messages: [{ author: 'harness', role: 'tool', texts: [text], images: [] }], agentPoints };
}

const found = (text: string, task = SERBIA, points: { lat: number; lon: number }[] = []) =>
  auditPrompt(prompt(text, points), task).map((f) => `${f.kind} ${f.severity} ${f.text}`);

describe('decimal commas', () => {
  it('reads "43,3209; 21,8958" and "43,3209 N 21,8958 E" as points near the truth', () => {
    expect(found('The camera stands at 43,3209; 21,8958.')).toEqual(['coordinates high 43,3209; 21,8958']);
    expect(found('Position 43,3209 N 21,8958 E (WGS84)')).toEqual(['coordinates high 43,3209 N 21,8958 E']);
    expect(findCoordinates('S 33,8688, E 151,2093').map((p) => [p.lat, p.lon])).toEqual([[-33.8688, 151.2093]]);
  });

  it('keeps lists and thousands apart from decimals, and decimal points as they were', () => {
    expect(findCoordinates('ids [43,21,5,7] and 1,234,567 people')).toEqual([]);
    expect(findCoordinates('https://www.google.com/maps/@43.3209,21.8958,15z').map((p) => [p.lat, p.lon])).toContainEqual([43.3209, 21.8958]);
  });
});

describe('ccTLDs in host names', () => {
  it("finds the true country's ccTLD in a URL's or a www. host, medium", () => {
    expect(found('Tiles from https://tiles.example.rs/12/2290/1507.png')).toEqual(['country medium tiles.example.rs']);
    expect(found('Street names as on www.posta.rs.')).toEqual(['country medium www.posta.rs']);
    expect(found('ftp://guest@files.example.rs:21/pano.jpg')).toEqual(['country medium files.example.rs']);
  });

  it('a vanity ccTLD (.me) is a low finding for its country', () => {
    expect(found('served by https://cdn.geo.me/v/1.jpg', MONTENEGRO)).toEqual(['country low cdn.geo.me']);
  });

  it('nothing for file names, paths, other countries, or a pin the agent placed in the country', () => {
    expect(found('built from main.rs and notes.md; https://cdn.example.com/x.rs')).toEqual([]);
    expect(found('https://tiles.example.bg/1/2/3.png')).toEqual([]);
    expect(found('Tiles from https://tiles.example.rs/1.png', SERBIA, [{ lat: 44.8176, lon: 20.4569 }])).toEqual([]);
  });
});
