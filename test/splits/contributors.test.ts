/**
 * One contributor identity for `tasks stats`, `splits check` and `splits build` (docs/splits.md,
 * "Contributors"), through the binary.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { geolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { poolRecord, spreadPool, writeJsonlFile, type PoolTask } from './pools.js';

/** Pool records whose attribution is replaced by `who(i)`. */
function recordsWith(pool: PoolTask[], who: (i: number) => { creator_username?: string; creator_id?: string }): Record<string, unknown>[] {
  return pool.map((t, i) => ({ ...poolRecord(t, i), attribution: { ...who(i), licence: 'CC-BY-SA', source: 'test' } }));
}

interface Stats {
  contributors: number;
  contributor_identity: { by: string; warnings: string[] };
}

interface Check {
  contributors: { by: string; train: number; eval: number; warnings: string[] };
  shared_contributors: { count: number };
}

describe('contributor identity', () => {
  it('a pool whose rows share one id and differ in username: counted by username alike in tasks stats and splits check, with a warning', () => {
    const dir = tempDir();
    // 30 tasks, one placeholder id, seven usernames (user0 … user6), 20 km apart; eval's three are user0, user3, user6.
    const pool = writeJsonlFile(dir, 'pool.jsonl', recordsWith(spreadPool(['France', 'Germany', 'Japan'], 10), (i) => ({ creator_username: `user${i % 7}`, creator_id: '0' })));
    const stats = geolab(['tasks', 'stats', pool, '--json']);
    expect(stats.code).toBe(0);
    const s = JSON.parse(stats.stdout) as Stats;
    expect(s.contributors).toBe(7);
    expect(s.contributor_identity.by).toBe('username');
    expect(stats.stderr).toContain('geolab: warning: ');
    expect(stats.stderr).toContain('creator_id "0" is on 30 of 30 tasks (more than half; a placeholder id?): contributors are told apart by creator_username instead');
    expect(geolab(['tasks', 'stats', pool]).stdout).toContain('30 tasks, 30 frames, 3 countries, 7 contributors (by username)');

    // With the shared id no longer taken for one contributor, --contributor-exclusive keeps a train split.
    const out = join(dir, 'cut');
    const built = geolab(['splits', 'build', pool, '--out-dir', out, '--eval', '3', '--eval-per-country', '1', '--contributor-exclusive', '--json'], { home: tempDir() });
    expect(built.code, built.stderr).toBe(0);
    expect(built.stderr).toContain('creator_id "0" is on 30 of 30 tasks');
    const manifest = JSON.parse(built.stdout) as { eval: { tasks: number }; train: { tasks: number }; dropped: { contributor: number } };
    expect(manifest.eval.tasks).toBe(3);
    expect(manifest.train.tasks).toBeGreaterThan(0);

    const trainFile = join(out, 'train.jsonl');
    const evalFile = join(out, 'eval.jsonl');
    const check = geolab(['splits', 'check', '--train', trainFile, '--eval', evalFile, '--contributor-exclusive', '--json']);
    expect(check.code, check.stderr).toBe(0);
    const c = JSON.parse(check.stdout) as Check;
    expect(c.contributors.by).toBe('username');
    expect(c.shared_contributors.count).toBe(0);
    const statsOf = (file: string) => (JSON.parse(geolab(['tasks', 'stats', file, '--json']).stdout) as Stats).contributors;
    expect(c.contributors.train).toBe(statsOf(trainFile));
    expect(c.contributors.eval).toBe(statsOf(evalFile));
    expect(c.contributors.train + c.contributors.eval).toBe(7);
    expect(c.contributors.eval).toBe(3);
    expect(geolab(['splits', 'check', '--train', trainFile, '--eval', evalFile]).stdout).toContain(`contributors (by username): ${c.contributors.train} in train, 3 in eval`);
  });

  it('counts by id when the ids vary, warning when one id is on more than half of the pool', () => {
    const dir = tempDir();
    // 12 tasks: ids 7 on tasks 0-6, own ids after; one username for all.
    const pool = writeJsonlFile(dir, 'pool.jsonl', recordsWith(spreadPool(['Kenya', 'Brazil'], 6), (i) => ({ creator_username: 'shared-name', creator_id: i < 7 ? '7' : `own-${i}` })));
    const stats = geolab(['tasks', 'stats', pool, '--json']);
    const s = JSON.parse(stats.stdout) as Stats;
    expect(s.contributor_identity.by).toBe('id');
    expect(s.contributors).toBe(6);
    expect(stats.stderr).toContain('creator_id "7" is on 7 of 12 tasks (more than half; a placeholder id?): contributors are still told apart by creator_id, as the ids vary');
  });

  it('no warning when no id covers more than half of the pool', () => {
    const pool = writeJsonlFile(tempDir(), 'pool.jsonl', recordsWith(spreadPool(['Kenya'], 4), (i) => ({ creator_username: `u${i}`, creator_id: i < 2 ? 'two' : `own-${i}` })));
    const stats = geolab(['tasks', 'stats', pool, '--json']);
    expect(stats.stderr).toBe('');
    expect((JSON.parse(stats.stdout) as Stats).contributors).toBe(3);
  });

  it('a failed --contributor-exclusive prints the dropped counts by reason, and writes nothing', () => {
    const dir = tempDir();
    // One contributor (one username, one id) for all ten tasks: every train task shares it with eval.
    const pool = writeJsonlFile(dir, 'pool.jsonl', recordsWith(spreadPool(['France', 'Germany'], 5), () => ({ creator_username: 'solo', creator_id: '42' })));
    const out = join(dir, 'cut');
    const r = geolab(['splits', 'build', pool, '--out-dir', out, '--eval', '2', '--eval-per-country', '1', '--contributor-exclusive'], { home: tempDir() });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('geolab: self-check failed: the train split would be empty: every pool task eval did not take was dropped (8 shared contributor)');
    expect(r.stderr).toContain('geolab: dropped: 0 shared sequence, 0 inside the buffer, 8 shared contributor, 0 country filter, 0 over the train cap');
    expect(r.stderr).toContain(`nothing written to ${out}`);
    expect(r.stdout).toBe('');
  });
});
