import { describe, expect, it, vi } from 'vitest';
import type { CompletedEpisode } from '../../src/core/episode.js';
import { GeolabError, UsageError } from '../../src/core/errors.js';
import { countEpisodes, EpisodeFieldError, episodesAfter, listEpisodes, loadEpisode, saveEpisode, type EpisodeQuery } from '../../src/store/episodes.js';
import { ensureEvalRun } from '../../src/store/eval-runs.js';
import { storeImage } from '../../src/store/images.js';
import { type Workspace } from '../../src/store/index.js';
import { completedEpisode, completedRecord, failedRecord, type EpisodeFixture, type EpisodeOptions } from '../helpers/episodes.js';
import { tempWorkspaces } from '../helpers/workspaces.js';

const workspace = tempWorkspaces();

function storeImages(ws: Workspace, fixture: EpisodeFixture): void {
  for (const { bytes, mime } of fixture.images.values()) storeImage(ws, bytes, mime as 'image/jpeg' | 'image/png');
}

const count = (ws: Workspace, table: string) => ws.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;

describe('saveEpisode and loadEpisode', () => {
  it('round-trips a completed episode with its turns, images and messages', async () => {
    const ws = await workspace();
    const fixture = await completedEpisode({ index: 3 });
    storeImages(ws, fixture);
    saveEpisode(ws.db, fixture.record);
    expect(loadEpisode(ws.db, fixture.record.episode_id)).toEqual(fixture.record);
  });

  it('keeps the turns a failed run played, even when its outcome was left null', async () => {
    const ws = await workspace();
    const turns = [{ turn: 0, status: 'ok', action: { action: 'reset' } }];
    const record = { ...failedRecord({ index: 4 }), failure: 'aborted', outcome: null, turns };
    saveEpisode(ws.db, record);
    expect(loadEpisode(ws.db, record.episode_id)).toMatchObject({ error: record.error, turns });
  });

  it('keeps the list columns on the episode row and each piece of the record once', async () => {
    const ws = await workspace();
    const fixture = await completedEpisode({ index: 3, country: 'Chile', verdict: 'far', distanceKm: 800, reward: 0.2 });
    storeImages(ws, fixture);
    saveEpisode(ws.db, fixture.record);
    const row = ws.db.prepare('SELECT * FROM episodes').get() as Record<string, unknown>;
    expect(row).toMatchObject({
      episode_id: 'ep-eval-3-s0',
      run_id: null,
      recorded_at: '2026-01-01T00:00:00.000Z',
      model_name: 'qwen3.5-4b',
      split: 'eval',
      task_index: 3,
      sample: 0,
      task_id: 'demo-3',
      country: 'Chile',
      verdict: 'far',
      distance_km: 800,
      reward: 0.2,
      train_reward: 0.2,
      turns_used: 3,
      error: null,
    });
    expect(JSON.parse(row.record_json as string)).not.toHaveProperty('turns');

    const turns = ws.db.prepare('SELECT * FROM turns ORDER BY turn').all() as Record<string, unknown>[];
    expect(turns.map((t) => t.turn)).toEqual([0, 1, 2, 3]);
    const recordTurns = fixture.record.turns ?? [];
    expect(turns.map((t) => t.image_sha256)).toEqual(recordTurns.map((t) => t.image_sha256 ?? null));
    expect(turns.map((t) => t.done)).toEqual([0, 0, 0, 1]);
    expect(JSON.parse(turns[2]?.action_json as string)).toEqual({ action: 'pin', lat: 47.2, lon: 10.3 });
    expect(turns[0]?.messages_json).toBeNull();
    expect(JSON.parse(turns[1]?.messages_json as string)).toEqual((recordTurns[1] as Record<string, unknown>).messages);
    expect(JSON.parse(turns[1]?.turn_json as string)).not.toHaveProperty('messages');
    expect(turns[3]).toMatchObject({ feedback: '800 km away.', reward: 0.2, status: 'ok' });
  });

  it('saves a failed episode with its error and no turns', async () => {
    const ws = await workspace();
    const record = failedRecord({ index: 2, recordedAt: '2026-02-01T10:00:00+00:00' });
    saveEpisode(ws.db, record);
    expect(loadEpisode(ws.db, record.episode_id)).toEqual(record);
    expect(listEpisodes(ws.db)).toEqual([
      {
        episode_id: 'ep-eval-2-failed',
        recorded_at: '2026-02-01T10:00:00.000Z',
        model_name: 'qwen3.5-4b',
        split: 'eval',
        task_index: 2,
        sample: 0,
        country: null,
        verdict: null,
        distance_km: null,
        reward: null,
        turns_used: null,
        error: 'ServiceError: model endpoint unreachable',
      },
    ]);
  });

  it('writes nothing when a turn references an image the store does not have', async () => {
    const ws = await workspace();
    const fixture = await completedEpisode();
    const [first] = fixture.images.values();
    if (first) storeImage(ws, first.bytes, 'image/jpeg'); // only the first of three images
    let error: unknown;
    try {
      saveEpisode(ws.db, fixture.record);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(EpisodeFieldError);
    expect((error as EpisodeFieldError).field).toBe('turns[1].image_sha256');
    expect((error as Error).message).toMatch(/not in the image store/);
    expect(count(ws, 'episodes')).toBe(0);
    expect(count(ws, 'turns')).toBe(0);
  });

  it('keeps the saved version when a replacement fails', async () => {
    const ws = await workspace();
    const fixture = await completedEpisode();
    storeImages(ws, fixture);
    saveEpisode(ws.db, fixture.record);
    const broken = { ...fixture.record, turns: [...(fixture.record.turns ?? []), { turn: 1, status: 'ok' }] };
    expect(() => saveEpisode(ws.db, broken)).toThrow(/turn 1 appears twice/);
    expect(loadEpisode(ws.db, fixture.record.episode_id)).toEqual(fixture.record);
  });

  it('can save turns whose images live elsewhere without linking them', async () => {
    const ws = await workspace();
    const record = completedRecord({}, { view0: 'a'.repeat(64) });
    saveEpisode(ws.db, record, { missingImages: 'unlink' });
    expect(ws.db.prepare('SELECT image_sha256 FROM turns WHERE turn = 0').pluck().get()).toBeNull();
    expect((loadEpisode(ws.db, record.episode_id) as CompletedEpisode).turns?.[0]?.image_sha256).toBe('a'.repeat(64));
  });

  it('replaces an episode saved again under the same id', async () => {
    const ws = await workspace();
    const record = completedRecord({ reward: 0.5 });
    saveEpisode(ws.db, record);
    saveEpisode(ws.db, record);
    expect(count(ws, 'episodes')).toBe(1);
    expect(count(ws, 'turns')).toBe(4);

    const shorter = completedRecord({ reward: 0.7, turns: 3 });
    saveEpisode(ws.db, shorter);
    expect(count(ws, 'episodes')).toBe(1);
    expect(count(ws, 'turns')).toBe(3);
    expect(loadEpisode(ws.db, record.episode_id)).toEqual(shorter);
    expect(listEpisodes(ws.db)[0]?.reward).toBe(0.7);
  });

  it('keeps the run of an episode saved again without one', async () => {
    const ws = await workspace();
    ensureEvalRun(ws.db, { id: 'run-1', root: '/runs/run-1' });
    saveEpisode(ws.db, completedRecord(), { runId: 'run-1' });
    saveEpisode(ws.db, completedRecord());
    expect(listEpisodes(ws.db, { runId: 'run-1' })).toHaveLength(1);
  });
});

describe('listEpisodes', () => {
  async function seeded(): Promise<Workspace> {
    const ws = await workspace();
    const save = (options: EpisodeOptions) => saveEpisode(ws.db, completedRecord(options));
    const at = (second: number) => `2026-01-01T00:00:0${second}Z`;
    save({ id: 'e1', index: 1, recordedAt: at(1), model: 'alpha', country: 'Austria', verdict: 'close', reward: 0.9, distanceKm: 10 });
    save({ id: 'e2', index: 2, recordedAt: at(2), model: 'beta', country: 'Chile', verdict: 'far', reward: 0.1, distanceKm: 3000, turns: 3 });
    save({ id: 'e3', index: 3, recordedAt: at(3), model: 'alpha', split: 'train', country: 'Chile', verdict: 'close', reward: 0.5, distanceKm: 200 });
    saveEpisode(ws.db, failedRecord({ id: 'e4', index: 4, recordedAt: at(4), model: 'beta' }));
    return ws;
  }
  const ids = (rows: { episode_id: string }[]) => rows.map((r) => r.episode_id);

  it('lists newest first, and oldest first when asked', async () => {
    const ws = await seeded();
    expect(ids(listEpisodes(ws.db))).toEqual(['e4', 'e3', 'e2', 'e1']);
    expect(ids(listEpisodes(ws.db, { descending: false }))).toEqual(['e1', 'e2', 'e3', 'e4']);
  });

  it('filters by model, split, country, verdict, reward range and text', async () => {
    const ws = await seeded();
    expect(ids(listEpisodes(ws.db, { model: 'alpha' }))).toEqual(['e3', 'e1']);
    expect(ids(listEpisodes(ws.db, { split: 'train' }))).toEqual(['e3']);
    expect(ids(listEpisodes(ws.db, { country: 'Chile', verdict: 'close' }))).toEqual(['e3']);
    expect(ids(listEpisodes(ws.db, { minReward: 0.5 }))).toEqual(['e3', 'e1']);
    expect(ids(listEpisodes(ws.db, { minReward: 0.2, maxReward: 0.6 }))).toEqual(['e3']);
    expect(ids(listEpisodes(ws.db, { search: 'chi' }))).toEqual(['e3', 'e2']);
    expect(ids(listEpisodes(ws.db, { search: 'unreachable' }))).toEqual(['e4']);
    expect(ids(listEpisodes(ws.db, { search: '%' }))).toEqual([]);
    expect(countEpisodes(ws.db)).toBe(4);
    expect(countEpisodes(ws.db, { model: 'beta' })).toBe(2);
  });

  it('matches model, country and verdict by their start whatever the case, the split whole', async () => {
    const ws = await seeded();
    expect(ids(listEpisodes(ws.db, { country: 'chile' }))).toEqual(['e3', 'e2']);
    expect(ids(listEpisodes(ws.db, { country: 'CHILE', verdict: 'Close' }))).toEqual(['e3']);
    expect(countEpisodes(ws.db, { verdict: 'CLOSE' })).toBe(2);
    expect(countEpisodes(ws.db, { verdict: 'cl' })).toBe(2);
    expect(ids(listEpisodes(ws.db, { model: 'Alp' }))).toEqual(['e3', 'e1']);
    expect(countEpisodes(ws.db, { model: 'lpha' })).toBe(0);
    expect(countEpisodes(ws.db, { split: 'TRAIN' })).toBe(0);
    expect(countEpisodes(ws.db, { split: 'tr' })).toBe(0);
    // A LIKE wildcard typed is a character to match, not a wildcard.
    expect(countEpisodes(ws.db, { model: '%' })).toBe(0);
  });

  it('finds a country by any name, code or demonym geolab knows, and a verdict by its first word', async () => {
    const ws = await workspace();
    const at = (second: number) => `2026-01-01T00:00:0${second}Z`;
    saveEpisode(ws.db, completedRecord({ id: 's1', index: 1, recordedAt: at(1), country: 'Republic of Serbia', verdict: 'Wrong continent' }));
    saveEpisode(ws.db, completedRecord({ id: 's2', index: 2, recordedAt: at(2), country: 'Czech Republic', verdict: 'Right region' }));
    saveEpisode(ws.db, completedRecord({ id: 's3', index: 3, recordedAt: at(3), country: 'Chile', verdict: 'Pinpoint' }));
    for (const country of ['serbia', 'Republic of S', 'RS', 'srb', 'serbian', 'Srbija']) {
      expect(ids(listEpisodes(ws.db, { country })), country).toEqual(['s1']);
    }
    // The former name in the record and today's name (Czechia) find each other.
    for (const country of ['czechia', 'CZ', 'czech']) expect(ids(listEpisodes(ws.db, { country })), country).toEqual(['s2']);
    expect(ids(listEpisodes(ws.db, { verdict: 'wrong' }))).toEqual(['s1']);
    expect(ids(listEpisodes(ws.db, { verdict: 'right' }))).toEqual(['s2']);
    expect(countEpisodes(ws.db, { country: 'japan' })).toBe(0);
  });

  it('sorts by reward, distance and turns, episodes without the value last either way', async () => {
    const ws = await seeded();
    expect(ids(listEpisodes(ws.db, { sort: 'reward' }))).toEqual(['e1', 'e3', 'e2', 'e4']);
    expect(ids(listEpisodes(ws.db, { sort: 'reward', descending: false }))).toEqual(['e2', 'e3', 'e1', 'e4']);
    expect(ids(listEpisodes(ws.db, { sort: 'distance' }))).toEqual(['e1', 'e3', 'e2', 'e4']);
    expect(ids(listEpisodes(ws.db, { sort: 'distance', descending: true }))).toEqual(['e2', 'e3', 'e1', 'e4']);
    // e1 and e3 both used three turns: ties go oldest first going up, newest first going down.
    expect(ids(listEpisodes(ws.db, { sort: 'turns' }))).toEqual(['e2', 'e1', 'e3', 'e4']);
    expect(ids(listEpisodes(ws.db, { sort: 'turns', descending: true }))).toEqual(['e3', 'e1', 'e2', 'e4']);
  });

  it('pages across the end of the episodes with the sort value into those without', async () => {
    const ws = await seeded();
    saveEpisode(ws.db, failedRecord({ id: 'e5', index: 5, recordedAt: '2026-01-01T00:00:05Z' }));
    // Without a reward, in time order the way the list runs: newest first going down.
    expect(ids(listEpisodes(ws.db, { sort: 'reward' }))).toEqual(['e1', 'e3', 'e2', 'e5', 'e4']);
    expect(ids(listEpisodes(ws.db, { sort: 'reward', descending: false }))).toEqual(['e2', 'e3', 'e1', 'e4', 'e5']);
    const page = (limit: number | undefined, offset: number) => ids(listEpisodes(ws.db, { sort: 'reward', limit, offset }));
    expect(page(2, 0)).toEqual(['e1', 'e3']);
    expect(page(2, 2)).toEqual(['e2', 'e5']);
    expect(page(2, 3)).toEqual(['e5', 'e4']);
    expect(page(1, 4)).toEqual(['e4']);
    expect(page(2, 5)).toEqual([]);
    expect(page(undefined, 1)).toEqual(['e3', 'e2', 'e5', 'e4']);
    expect(page(0, 0)).toEqual([]);
    expect(ids(listEpisodes(ws.db, { sort: 'reward', model: 'beta', limit: 1, offset: 1 }))).toEqual(['e4']);
  });

  it('pages with limit and offset', async () => {
    const ws = await seeded();
    expect(ids(listEpisodes(ws.db, { limit: 2 }))).toEqual(['e4', 'e3']);
    expect(ids(listEpisodes(ws.db, { limit: 2, offset: 2 }))).toEqual(['e2', 'e1']);
    expect(ids(listEpisodes(ws.db, { offset: 3 }))).toEqual(['e1']);
  });

  it('reads pages from covering indexes in order, never the wide episode rows nor a sort of every match', async () => {
    const ws = await seeded();
    const prepare = ws.db.prepare.bind(ws.db);
    // listEpisodes runs its own SQL with its own parameters, explained instead of executed.
    vi.spyOn(ws.db, 'prepare').mockImplementation(((sql: string) => prepare(`EXPLAIN QUERY PLAN ${sql}`)) as typeof prepare);
    const plan = (query: EpisodeQuery) => (listEpisodes(ws.db, query) as unknown as { detail: string }[]).map((r) => r.detail);
    const filters: EpisodeQuery[] = [
      {},
      { country: 'Chile' },
      { model: 'alpha', split: 'eval', verdict: 'close' },
      { minReward: 0.2 },
      { search: 'chi' },
    ];
    for (const filter of filters) {
      for (const sort of ['recent', 'reward', 'distance', 'turns'] as const) {
        for (const descending of [true, false]) {
          const query = { ...filter, sort, descending, limit: 50, offset: 100 };
          const index = sort === 'recent' ? 'episodes_list' : `episodes_by_${sort}`;
          const walk = new RegExp(`^(SCAN|SEARCH) episodes USING COVERING INDEX ${index}\\b`);
          for (const step of plan(query)) expect(step, JSON.stringify(query)).toMatch(walk);
        }
      }
    }
  });
});

describe('loadEpisode by prefix', () => {
  async function seeded(): Promise<Workspace> {
    const ws = await workspace();
    for (const id of ['3f9a21c0-aaaa', '3f9a21c0-bbbb', '3f9b0000', '3f']) saveEpisode(ws.db, completedRecord({ id }));
    return ws;
  }

  it('finds the one episode an unambiguous prefix names', async () => {
    const ws = await seeded();
    expect(loadEpisode(ws.db, '3f9b')?.episode_id).toBe('3f9b0000');
    expect(loadEpisode(ws.db, '3f9a21c0-b')?.episode_id).toBe('3f9a21c0-bbbb');
  });

  it('prefers an exact id over the longer ids it starts', async () => {
    const ws = await seeded();
    expect(loadEpisode(ws.db, '3f')?.episode_id).toBe('3f');
  });

  it('refuses an ambiguous prefix, naming the candidates', async () => {
    const ws = await seeded();
    expect(() => loadEpisode(ws.db, '3f9a')).toThrow(GeolabError);
    expect(() => loadEpisode(ws.db, '3f9a')).toThrow(/ambiguous.*3f9a21c0-aaaa, 3f9a21c0-bbbb/);
  });

  it('returns nothing for an unknown id and refuses an empty one', async () => {
    const ws = await seeded();
    expect(loadEpisode(ws.db, 'zz')).toBeUndefined();
    expect(loadEpisode(ws.db, '3f9c')).toBeUndefined();
    expect(() => loadEpisode(ws.db, '')).toThrow(UsageError);
  });
});

describe('episodesAfter', () => {
  it('gives the episodes stored after a row, in table order with their run, each as loadEpisode does without the messages', async () => {
    const ws = await workspace();
    ensureEvalRun(ws.db, { id: 'r1', root: '/tmp/r1' });
    const first = completedRecord({ id: 'zz-first', index: 1 });
    const failed = failedRecord({ id: 'aa-failed', index: 2 });
    saveEpisode(ws.db, first, { runId: 'r1' });
    saveEpisode(ws.db, failed);
    const all = episodesAfter(ws.db, 0, 10);
    expect(all.map((e) => [e.record.episode_id, e.runId])).toEqual([
      ['zz-first', 'r1'],
      ['aa-failed', null],
    ]);
    const withoutMessages = { ...first, turns: first.turns!.map(({ messages: _, ...turn }) => turn) };
    expect(all[0]!.record).toEqual(withoutMessages);
    expect(all[1]!.record).toEqual(loadEpisode(ws.db, 'aa-failed'));
    expect(episodesAfter(ws.db, all[0]!.rowid, 10).map((e) => e.record.episode_id)).toEqual(['aa-failed']);
    expect(episodesAfter(ws.db, 0, 1)).toHaveLength(1);

    // Saved again, an episode keeps its row: nothing new after the last one read.
    saveEpisode(ws.db, { ...first, model_name: 'renamed' });
    expect(episodesAfter(ws.db, all[1]!.rowid, 10)).toEqual([]);
    saveEpisode(ws.db, completedRecord({ id: 'mm-new', index: 3 }));
    expect(episodesAfter(ws.db, all[1]!.rowid, 10).map((e) => e.record.episode_id)).toEqual(['mm-new']);
  });
});
