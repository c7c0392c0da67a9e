/**
 * The Episodes filters `text:` (the full-text index of prompts and replies, src/store/episode-text.ts)
 * and `status:` over a real workspace database: what each finds, and that the index follows every save,
 * import and migration (docs/tui.md, Episodes).
 */
import { describe, expect, it } from 'vitest';
import type { CompletedEpisode, EpisodeRecord } from '../../src/core/episode.js';
import { UsageError } from '../../src/core/errors.js';
import { migrate, schemaVersion } from '../../src/store/db.js';
import { EPISODE_STATUSES, type EpisodeStatus } from '../../src/store/episode-state.js';
import { searchText } from '../../src/store/episode-text.js';
import { countEpisodes, listEpisodes, saveEpisode } from '../../src/store/episodes.js';
import { importEpisodesFile } from '../../src/store/import-episodes.js';
import type { Workspace } from '../../src/store/index.js';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { completedRecord, failedRecord } from '../helpers/episodes.js';
import { writeJsonl } from '../helpers/fixtures.js';
import { tempWorkspaces } from '../helpers/workspaces.js';

const workspace = tempWorkspaces();

/** A completed record whose model says `reply` on its look turn (and reasons `reasoning`). */
function replying(id: string, reply: string, reasoning?: string): CompletedEpisode {
  const record = completedRecord({ id });
  const look = record.turns.find((t) => t.turn === 1)!;
  look.model = { ...look.model, reply, ...(reasoning === undefined ? {} : { reasoning }) };
  return record;
}

const ids = (ws: Workspace, query: Parameters<typeof listEpisodes>[1]) => listEpisodes(ws.db, query).map((r) => r.episode_id).sort();

describe('text: over prompts and replies', () => {
  it('finds the episode whose reply holds the word, and not another', async () => {
    const ws = await workspace();
    saveEpisode(ws.db, replying('bollard-1', 'Black and white bollards: I think Austria.'));
    saveEpisode(ws.db, replying('kangaroo-2', 'A kangaroo sign, so Australia.'));
    expect(ids(ws, { text: 'kangaroo' })).toEqual(['kangaroo-2']);
    expect(ids(ws, { text: 'bollards' })).toEqual(['bollard-1']);
    expect(countEpisodes(ws.db, { text: 'kangaroo' })).toBe(1);
    // Not the id or the model: those are the plain search's.
    expect(ids(ws, { text: 'qwen3' })).toEqual([]);
  });

  it('matches a word by its start, whatever its case and accents, and a phrase in order', async () => {
    const ws = await workspace();
    saveEpisode(ws.db, replying('a', 'Signs in ZÜRICH, white road lines'));
    saveEpisode(ws.db, replying('b', 'lines of white paint on the road'));
    expect(ids(ws, { text: 'zurich' })).toEqual(['a']);
    expect(ids(ws, { text: 'Zür' })).toEqual(['a']);
    expect(ids(ws, { text: 'bollard' })).toEqual([]);
    expect(ids(ws, { text: 'white road' })).toEqual(['a']);
    expect(ids(ws, { text: 'white' })).toEqual(['a', 'b']);
  });

  it('searches the reasoning, the prompts the model was sent and a failed record’s turns', async () => {
    const ws = await workspace();
    saveEpisode(ws.db, replying('reasons', '{"action": "guess"}', 'Left-hand traffic and eucalyptus'));
    // The fixture's look turn was sent "You are playing GeoGuesser." as its system message.
    saveEpisode(ws.db, completedRecord({ id: 'plain' }));
    const failed = { ...failedRecord({ id: 'failed-turns' }), turns: [{ turn: 1, status: 'ok', prompt: 'Where is the marmot?', model: { reply: 'Alps' } }] };
    saveEpisode(ws.db, failed as EpisodeRecord);
    expect(ids(ws, { text: 'eucalyptus' })).toEqual(['reasons']);
    expect(ids(ws, { text: 'playing geoguesser' })).toEqual(['plain', 'reasons']);
    expect(ids(ws, { text: 'marmot' })).toEqual(['failed-turns']);
    expect(ids(ws, { text: 'alps' })).toEqual(['failed-turns']);
  });

  it('takes any text a user types as words, never as FTS5 syntax', async () => {
    const ws = await workspace();
    saveEpisode(ws.db, replying('quoted', 'He said "north" AND meant it: NEAR(the) coast*'));
    for (const typed of ['"north"', 'north" OR "x', 'AND', 'NEAR(the)', 'coast*', '-meant', 'said:', '"', '*', '(', "it's", '^north']) {
      expect(() => listEpisodes(ws.db, { text: typed }), typed).not.toThrow();
    }
    expect(ids(ws, { text: '"north"' })).toEqual(['quoted']);
    expect(ids(ws, { text: 'north" OR "x' })).toEqual([]);
    expect(ids(ws, { text: 'NEAR(the)' })).toEqual(['quoted']);
    expect(ids(ws, { text: '***' })).toEqual([]);
  });

  it('follows the episode when it is saved again', async () => {
    const ws = await workspace();
    saveEpisode(ws.db, replying('again', 'a kangaroo'));
    saveEpisode(ws.db, replying('again', 'a wombat'));
    expect(ids(ws, { text: 'kangaroo' })).toEqual([]);
    expect(ids(ws, { text: 'wombat' })).toEqual(['again']);
    saveEpisode(ws.db, failedRecord({ id: 'again' }));
    expect(ids(ws, { text: 'wombat' })).toEqual([]);
  });

  it('indexes what an import saves, and leaves nothing of a refused one', async () => {
    const ws = await workspace();
    const file = writeJsonl([replying('imp-1', 'a moose crossing'), replying('imp-2', 'a camel')] as unknown as Record<string, unknown>[]);
    await importEpisodesFile(ws, file);
    expect(ids(ws, { text: 'moose' })).toEqual(['imp-1']);
    const twice = replying('imp-3', 'a yak');
    twice.turns.push({ ...twice.turns[1]!, model: { reply: 'a yak again' } });
    await expect(importEpisodesFile(ws, writeJsonl([replying('imp-4', 'an emu'), twice] as unknown as Record<string, unknown>[]))).rejects.toThrow(/appears twice/);
    expect(ids(ws, { text: 'emu' })).toEqual([]);
    expect(ids(ws, { text: 'yak' })).toEqual([]);
    const skipped = await importEpisodesFile(ws, writeJsonl([replying('imp-4', 'an emu'), twice] as unknown as Record<string, unknown>[]), { skipInvalid: true });
    expect(skipped.skipped).toBe(1);
    expect(ids(ws, { text: 'emu' })).toEqual(['imp-4']);
    expect(ids(ws, { text: 'yak' })).toEqual([]);
    // The refused record was refused before any of it was written (the import has no savepoint per episode).
    expect(ids(ws, {})).toEqual(['imp-1', 'imp-2', 'imp-4']);
    expect(ws.db.prepare("SELECT COUNT(*) FROM turns WHERE episode_id = 'imp-3'").pluck().get()).toBe(0);
  });

  it('is filled by its migration for the episodes stored before it', async () => {
    const ws = await workspace();
    saveEpisode(ws.db, replying('old-1', 'a lighthouse'));
    saveEpisode(ws.db, failedRecord({ id: 'old-2' }));
    // The workspace as it was before the full-text migration, the last one.
    ws.db.exec('DROP TABLE episode_text; DROP INDEX turns_provider_error');
    ws.db.pragma(`user_version = ${MIGRATIONS.length - 1}`);
    migrate(ws.db);
    expect(schemaVersion(ws.db)).toBe(MIGRATIONS.length);
    expect(ids(ws, { text: 'lighthouse' })).toEqual(['old-1']);
    expect(ids(ws, { text: 'playing' })).toEqual(['old-1']);
  });

  it('reads each distinct text once: a message list repeats the conversation every turn', () => {
    const record = completedRecord({});
    const text = searchText(record.turns);
    expect(text.split('\n').filter((line) => line === 'You are playing GeoGuesser.')).toHaveLength(1);
    expect(text).toContain('What do you do?');
    expect(text).toContain('{"action": "pin", "lat": 47.2, "lon": 10.3}');
    // The environment's feedback reaches the model in the next prompt; on its own it is not searched.
    expect(text).not.toContain('Pin 1 placed');
    expect(searchText(undefined)).toBe('');
  });
});

describe('status:', () => {
  async function statuses() {
    const ws = await workspace();
    saveEpisode(ws.db, completedRecord({ id: 'scored', index: 1 }));
    const providerError = completedRecord({ id: 'scored-provider-error', index: 2 });
    providerError.turns[1]!.status = 'provider_error';
    saveEpisode(ws.db, providerError);
    saveEpisode(ws.db, failedRecord({ id: 'failed', index: 3 }));
    saveEpisode(ws.db, { ...failedRecord({ id: 'aborted', index: 4, error: 'aborted' }), failure: 'aborted' } as EpisodeRecord);
    const failedProviderError = { ...failedRecord({ id: 'failed-provider-error', index: 5 }), failure: 'unreachable', turns: [{ turn: 1, status: 'provider_error' }] };
    saveEpisode(ws.db, failedProviderError as EpisodeRecord);
    return ws;
  }

  it.each<[EpisodeStatus, string[]]>([
    ['scored', ['scored', 'scored-provider-error']],
    ['failed', ['failed', 'failed-provider-error']],
    ['aborted', ['aborted']],
    ['provider-error', ['failed-provider-error', 'scored-provider-error']],
  ])('status:%s picks its episodes', async (status, expected) => {
    const ws = await statuses();
    expect(ids(ws, { status })).toEqual(expected);
    expect(countEpisodes(ws.db, { status })).toBe(expected.length);
  });

  it('names every status there is, and refuses another naming them', async () => {
    expect(EPISODE_STATUSES).toEqual(['scored', 'failed', 'aborted', 'provider-error']);
    const ws = await statuses();
    const bad = () => listEpisodes(ws.db, { status: 'done' as EpisodeStatus });
    expect(bad).toThrow(UsageError);
    expect(bad).toThrow('"done" is not a status: expected scored, failed, aborted or provider-error');
  });

  it('combines with the other filters and sorts', async () => {
    const ws = await statuses();
    // In the list's order: the scored one by its reward, the failed one (no reward) last.
    expect(listEpisodes(ws.db, { status: 'provider-error', sort: 'reward' }).map((r) => r.episode_id)).toEqual(['scored-provider-error', 'failed-provider-error']);
    expect(ids(ws, { status: 'failed', text: 'kangaroo' })).toEqual([]);
    expect(ids(ws, { status: 'scored', text: 'geoguesser' })).toEqual(['scored', 'scored-provider-error']);
  });
});
