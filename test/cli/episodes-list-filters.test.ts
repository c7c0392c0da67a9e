/**
 * `geolab episodes list --status S --text WORDS` through the binary: the same status and full-text
 * filters as the Episodes screen's `status:` and `text:` (docs/tui.md, Filtering the episodes).
 */
import { describe, expect, it } from 'vitest';
import { geolab } from '../helpers/cli.js';
import { completedRecord, failedRecord } from '../helpers/episodes.js';
import { tempDir, writeJsonl } from '../helpers/fixtures.js';

describe('geolab episodes list --status --text', () => {
  it('lists the episodes a reply names, and those that ended so; an unknown status is bad usage naming the statuses', () => {
    const home = tempDir();
    const kangaroo = completedRecord({ id: 'kangaroo-1', index: 1 });
    const look = kangaroo.turns.find((t) => t.turn === 1)!;
    look.model = { ...look.model!, reply: 'A kangaroo crossing sign, so Australia.' };
    const plain = completedRecord({ id: 'plain-2', index: 2 });
    const failed = failedRecord({ id: 'failed-3', index: 3 });
    const imported = geolab(['episodes', 'import', writeJsonl([kangaroo, plain, failed] as unknown as Record<string, unknown>[])], { home });
    expect(imported.code, imported.stderr).toBe(0);
    const ids = (args: string[]) => {
      const r = geolab(['episodes', 'list', '--json', ...args], { home });
      expect(r.code, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as { episode_id: string }[]).map((e) => e.episode_id).filter((id) => /^(kangaroo|plain|failed)-/.test(id)).sort();
    };
    expect(ids(['--text', 'kangaroo'])).toEqual(['kangaroo-1']);
    expect(ids(['--text', 'KANGA'])).toEqual(['kangaroo-1']);
    expect(ids(['--status', 'failed'])).toEqual(['failed-3']);
    expect(ids(['--status', 'scored', '--text', 'kangaroo crossing'])).toEqual(['kangaroo-1']);
    const bad = geolab(['episodes', 'list', '--status', 'done'], { home });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('geolab: --status: "done" is not a status: expected scored, failed, aborted or provider-error\n');
  });
});
