import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openWorkspace } from '../../src/store/index.js';
import { readTasks } from '../../src/store/task-sets.js';
import { geolab, jsonLines } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { CENTRES, northOf, poolRecord, spreadPool, type PoolTask } from './pools.js';

function writePool(pool: PoolTask[], dir = tempDir()): string {
  const file = join(dir, 'pool.jsonl');
  writeFileSync(file, pool.map((t, i) => JSON.stringify(poolRecord(t, i))).join('\n') + '\n');
  return file;
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

interface Manifest {
  eval: { tasks: number; countries: number; per_country: Record<string, number> };
  train: { tasks: number; per_country: Record<string, number> };
  dropped: Record<string, number>;
  closest_cross_km: number;
  options: Record<string, unknown>;
  inputs: { pool_sha256: string };
  outputs: { eval_sha256: string; train_sha256: string };
  leak_potential: { pool: { single_country_contributor_share: number }; eval: unknown; train: unknown };
}

describe('geolab splits build', () => {
  it('writes both splits and a manifest whose hashes match the files, and imports NAME-eval / NAME-train', async () => {
    const home = tempDir();
    const pool = writePool(spreadPool(['France', 'Germany', 'Japan'], 6));
    const out = join(tempDir(), 'cut');
    const r = geolab(['splits', 'build', pool, '--out-dir', out, '--eval', '6', '--eval-per-country', '2', '--buffer-km', '25', '--countries', 'FR,deutschland,Nippon', '--json'], { home });
    // The only thing on stderr: a 9-task train split is under 50 tasks.
    expect(r.stderr).toMatch(/^geolab: warning: train gets only 9 of the 18 pool tasks \(50\.0%, under 50 tasks; eval takes 6\)[^\n]*\n$/);
    expect(r.code).toBe(0);
    const manifest = JSON.parse(r.stdout) as Manifest;
    expect(manifest).toEqual(JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')));
    expect(manifest.eval).toEqual({ tasks: 6, countries: 3, per_country: { France: 2, Germany: 2, Japan: 2 } });
    expect(manifest.dropped).toEqual({ shared_sequence: 0, buffer: 3, contributor: 0, country_filter: 0, cap: 0 });
    expect(manifest.outputs).toEqual({ eval_sha256: sha256(join(out, 'eval.jsonl')), train_sha256: sha256(join(out, 'train.jsonl')) });
    expect(manifest.inputs.pool_sha256).toBe(sha256(pool));
    expect(manifest.closest_cross_km).toBe(40);
    expect(manifest.options).toMatchObject({ countries: ['France', 'Germany', 'Japan'], buffer_km: 25 });
    expect(manifest.leak_potential.pool.single_country_contributor_share).toBe(1);
    expect(readdirSync(out).sort()).toEqual(['eval.jsonl', 'manifest.json', 'train.jsonl']);

    const evalLines = jsonLines(readFileSync(join(out, 'eval.jsonl'), 'utf8')) as { task_id: string }[];
    const ws = await openWorkspace(home);
    try {
      expect(readTasks(ws.db, 'cut-eval').map((t) => t.task_id)).toEqual(evalLines.map((t) => t.task_id));
      expect(readTasks(ws.db, 'cut-train')).toHaveLength(manifest.train.tasks);
    } finally {
      ws.close();
    }
    const check = geolab(['splits', 'check', '--train', join(out, 'train.jsonl'), '--eval', join(out, 'eval.jsonl'), '--buffer-km', '25']);
    expect(check.code).toBe(0);
    expect(check.stdout).toContain('clean');
  });

  it('writes nothing when the self-check fails, leaving the previous output as it was', () => {
    const home = tempDir();
    const pool = writePool(spreadPool(['Brazil'], 5).map((t, i) => ({ ...t, offlineReady: i < 2 })));
    const out = join(tempDir(), 'cut');
    expect(geolab(['splits', 'build', pool, '--out-dir', out, '--eval', '2', '--eval-per-country', '9', '--require-offline-ready'], { home }).code).toBe(0);
    const before = Object.fromEntries(readdirSync(out).map((f) => [f, readFileSync(join(out, f), 'utf8')]));
    const r = geolab(['splits', 'build', pool, '--out-dir', out, '--eval', '3', '--eval-per-country', '9', '--require-offline-ready', '--replace'], { home });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('self-check failed: 1 eval task(s) not offline-ready');
    expect(r.stderr).toContain('nothing written');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(Object.fromEntries(readdirSync(out).map((f) => [f, readFileSync(join(out, f), 'utf8')]))).toEqual(before);
  });

  it('names an unknown country and suggests the closest', () => {
    const pool = writePool(spreadPool(['France'], 2));
    const r = geolab(['splits', 'build', pool, '--out-dir', join(tempDir(), 'x'), '--countries', 'France,Grmany'], { home: tempDir() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--countries: unknown country "Grmany"; did you mean "Germany"?');
  });

  it('refuses --interactive without a terminal, pointing at the flags', () => {
    const pool = writePool(spreadPool(['France'], 2));
    const r = geolab(['splits', 'build', pool, '--out-dir', join(tempDir(), 'x'), '--interactive'], { home: tempDir() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--interactive needs a terminal');
    expect(r.stderr).toContain('--countries');
  });
});

describe('geolab splits check', () => {
  it('finds a planted cross-split pair 0.9 km apart, a shared sequence and a shared contributor', () => {
    const [lat, lon] = CENTRES.Italy!;
    const dir = tempDir();
    const evalFile = join(dir, 'eval.jsonl');
    const trainFile = join(dir, 'train.jsonl');
    const evalPool: PoolTask[] = [
      { country: 'Italy', lat, lon, sequence: 'seq-e0', username: 'eve' },
      { country: 'Italy', ...northOf(lat, lon, 100), sequence: 'seq-e1', username: 'bob' },
    ];
    const trainPool: PoolTask[] = [
      { country: 'Italy', ...northOf(lat, lon, 0.9), sequence: 'seq-t0', username: 't0' },
      { country: 'Italy', ...northOf(lat, lon, 50), sequence: 'seq-e1', username: 't1' },
      { country: 'Italy', ...northOf(lat, lon, 200), sequence: 'seq-t2', username: 'eve' },
    ];
    writeFileSync(evalFile, evalPool.map((t, i) => JSON.stringify({ ...poolRecord(t, i), task_id: `e${i}` })).join('\n') + '\n');
    writeFileSync(trainFile, trainPool.map((t, i) => JSON.stringify({ ...poolRecord(t, i), task_id: `t${i}` })).join('\n') + '\n');
    const r = geolab(['splits', 'check', '--train', trainFile, '--eval', evalFile, '--contributor-exclusive', '--json']);
    expect(r.code).toBe(1);
    const c = JSON.parse(r.stdout) as {
      clean: boolean;
      buffer_pairs: { count: number; closest: { train_id: string; eval_id: string; km: number }[] };
      shared_sequences: { listed: string[] };
      shared_contributors: { listed: string[] };
      leak_potential: { train: { tasks: number } };
    };
    expect(c.clean).toBe(false);
    expect(c.buffer_pairs).toEqual({ count: 1, closest: [{ train_id: 't0', eval_id: 'e0', km: 0.9 }] });
    expect(c.shared_sequences.listed).toEqual(['seq-e1']);
    expect(c.shared_contributors.listed).toEqual(['eve']);
    expect(c.leak_potential.train.tasks).toBe(3);
    const text = geolab(['splits', 'check', '--train', trainFile, '--eval', evalFile]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('t0 - e0: 0.9 km');
    expect(text.stdout).toContain('contaminated');
  });
});

describe('leak potential in geolab tasks stats', () => {
  it('counts single-country contributors, sequence siblings within 1 km and contributors per country', () => {
    const [lat, lon] = CENTRES.Germany!;
    const pool: PoolTask[] = [
      { country: 'Germany', lat, lon, sequence: 'a', username: 'ann' },
      { country: 'Germany', ...northOf(lat, lon, 0.5), sequence: 'a', username: 'ann' },
      { country: 'Germany', ...northOf(lat, lon, 30), sequence: 'a', username: 'max' },
      { country: 'France', ...northOf(...CENTRES.France!, 0), sequence: 'b', username: 'max' },
    ];
    const file = writePool(pool);
    const r = geolab(['tasks', 'stats', file, '--json']);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { leak_potential: unknown }).leak_potential).toEqual({
      tasks: 4,
      buffer_km: 1,
      single_country_contributor_share: 0.5,
      sequence_siblings_share: 0.5,
      contributors_per_country: { Germany: 2, France: 1 },
    });
    expect(geolab(['tasks', 'stats', file]).stdout).toContain('leak potential (tasks): 50.0% of tasks by a single-country contributor, 50.0% with a sequence sibling within 1 km');
  });
});
