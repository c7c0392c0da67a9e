/**
 * The Episodes filter's `text:` and `status:` through the real binary in a real terminal (tmux), on a
 * workspace whose episodes differ by what the model replied and how they ended.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CompletedEpisode, EpisodeRecord } from '../../src/core/episode.js';
import { saveEpisode } from '../../src/store/episodes.js';
import { openWorkspace } from '../../src/store/index.js';
import { BIN } from '../helpers/cli.js';
import { completedRecord, failedRecord } from '../helpers/episodes.js';
import { tempDir } from '../helpers/fixtures.js';
import { TmuxPane } from '../helpers/tmux.js';

const panes: TmuxPane[] = [];
afterEach(() => panes.splice(0).forEach((p) => p.kill()));

function replying(index: number, reply: string): CompletedEpisode {
  const record = completedRecord({ id: `reply-${index}`, index, recordedAt: new Date(Date.UTC(2026, 0, 1, 0, index)).toISOString() });
  record.turns.find((t) => t.turn === 1)!.model = { reply };
  return record;
}

describe('the Episodes filter in a real terminal', () => {
  it('finds the episode whose reply holds a word with text:, and the aborted one with status:', async () => {
    const home = join(tempDir(), 'home');
    const ws = await openWorkspace(home, { seedDemo: false });
    saveEpisode(ws.db, replying(1, 'Black and white bollards, so Austria.'));
    saveEpisode(ws.db, replying(2, 'A kangaroo crossing sign: Australia.'));
    saveEpisode(ws.db, replying(3, 'Cyrillic script and a Lada.'));
    saveEpisode(ws.db, { ...failedRecord({ id: 'stopped-4', index: 4, error: 'aborted' }), failure: 'aborted' } as EpisodeRecord);
    ws.close();
    const pane = new TmuxPane([process.execPath, BIN], { GEOLAB_HOME: home, TERM: 'xterm-256color' });
    panes.push(pane);
    await pane.waitFor((s) => s.includes('Watch a model') && / geolab {2}workspace /.test(s));
    pane.send(['Enter']);
    await pane.waitFor('EPISODES · 4 recorded');
    pane.send(['/']);
    // The prompt's placeholder lists the new terms.
    expect(await pane.waitFor('filter:')).toContain('status:failed text:word');
    pane.send(['text:KANGA'], true);
    pane.send(['Enter']);
    const found = await pane.waitFor('EPISODES · 1 of 4 · text:KANGA');
    expect(found).toContain('eval/2');
    expect(found).not.toMatch(/eval\/[134]\b/);
    pane.send(['c', '/']);
    await pane.waitFor('filter:');
    pane.send(['status:aborted'], true);
    pane.send(['Enter']);
    const aborted = await pane.waitFor('EPISODES · 1 of 4 · status:aborted');
    expect(aborted).toContain('eval/4');
    expect(aborted).not.toMatch(/eval\/[123]\b/);
    pane.send(['q', 'q']);
  });
});
