/**
 * `geolab episodes show ID` without a terminal (stdout a pipe): the real binary prints each turn's
 * reasoning and the prose of its reply, as the Player's `r` shows them, and not tool-call JSON.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Turn } from '../../src/core/episode.js';
import { completedRecord } from '../helpers/episodes.js';
import { geolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';

describe('geolab episodes show, piped', () => {
  it('prints the reasoning and the reply prose under each turn, keeping their lines', () => {
    const record = completedRecord({ id: 'feed0001-plain-show', index: 4 });
    const turns = record.turns as Turn[];
    turns[1]!.model = {
      ...turns[1]!.model,
      reasoning: 'The road signs are yellow.\nThat points to central Europe.',
      reply: 'Looking east to read the sign.',
    };
    // A reply that is only tool-call JSON is a call, not prose.
    turns[2]!.model = {
      reasoning: 'Alpine valley, German on the shop fronts.',
      reply: '[{"id":"call_2_0","type":"function","function":{"name":"pin","arguments":"{\\"lat\\":47.2,\\"lon\\":10.3}"}}]',
    };
    const dir = tempDir();
    const file = join(dir, 'episodes.jsonl');
    writeFileSync(file, JSON.stringify(record) + '\n');
    const home = tempDir();
    const imported = geolab(['episodes', 'import', file], { home });
    expect(imported.code, imported.stderr).toBe(0);

    const shown = geolab(['episodes', 'show', 'feed0001'], { home });
    expect(shown.code, shown.stderr).toBe(0);
    const lines = shown.stdout.split('\n');
    const look = lines.findIndex((l) => /^ {2}1 look\(heading_deg=90\)$/.test(l));
    expect(look, shown.stdout).toBeGreaterThan(0);
    expect(lines.slice(look + 1, look + 5)).toEqual([
      '    reasoning: The road signs are yellow.',
      '      That points to central Europe.',
      '    reply: Looking east to read the sign.',
      '    Facing 90 deg. 23 actions left.',
    ]);
    const pin = lines.findIndex((l) => l.startsWith('  2 pin('));
    expect(lines.slice(pin + 1, pin + 3)).toEqual(['    reasoning: Alpine valley, German on the shop fronts.', '    Pin 1 placed. 22 actions left.']);
    expect(shown.stdout).not.toContain('call_2_0');
    // A reply that is the action's JSON (the JSON protocol) is the call line already.
    const guess = lines.findIndex((l) => l.startsWith('  3 guess('));
    expect(lines[guess + 1]).toBe('    12.5 km away.');
    // Turns without a model's text add no empty labels.
    expect(shown.stdout).not.toMatch(/reasoning: *$/m);
  });
});
