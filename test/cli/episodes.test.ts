/**
 * `geolab episodes list | import`, through the command functions (the commander wiring in main.ts
 * maps --limit, --model, --split, --country, --verdict, --skip-invalid and --json onto them).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { importCommand, listCommand } from '../../src/cli/commands/episodes.js';
import { InputError, UsageError } from '../../src/core/errors.js';
import { completedRecord, failedRecord } from '../helpers/episodes.js';
import { tempDir } from '../helpers/fixtures.js';
import { openWorkspace } from '../../src/store/index.js';

let stdout = '';
let stderr = '';
beforeEach(() => {
  stdout = '';
  stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((stdout += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((stderr += String(chunk)), true));
});
afterEach(() => vi.restoreAllMocks());

function episodesFile(lines: (object | string)[]): string {
  const file = join(tempDir(), 'episodes.jsonl');
  writeFileSync(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return file;
}

const EPISODES = [
  completedRecord({
    id: '3f9a21c0-0001',
    index: 17,
    model: 'alpha',
    country: 'Austria',
    verdict: 'close',
    distanceKm: 14.04,
    reward: 0.9123,
    recordedAt: '2026-01-01T00:00:01Z',
  }),
  completedRecord({
    id: '7b00aa11-0002',
    index: 3,
    model: 'beta',
    split: 'train',
    country: 'Chile',
    verdict: 'far',
    distanceKm: 2500,
    reward: 0.1,
    recordedAt: '2026-01-01T00:00:02Z',
  }),
  failedRecord({ id: 'c0ffee00-0003', index: 5, model: 'beta', recordedAt: '2026-01-01T00:00:03Z' }),
];

/** A workspace created without the demo tasks and episodes a new one gets. */
async function emptyWorkspace(): Promise<string> {
  const workspace = tempDir();
  (await openWorkspace(workspace, { seedDemo: false })).close();
  return workspace;
}

async function seeded(): Promise<string> {
  const workspace = await emptyWorkspace();
  await importCommand([episodesFile(EPISODES)], { workspace, json: true });
  stdout = '';
  return workspace;
}

describe('geolab episodes list', () => {
  it('says so when there are no episodes', async () => {
    await listCommand({ workspace: await emptyWorkspace() });
    expect(stdout).toBe('no episodes yet\n');
  });

  it('prints an aligned table, newest first, with short ids', async () => {
    await listCommand({ workspace: await seeded() });
    const lines = stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^episode\s+model\s+split\s+task\s+country\s+verdict\s+distance_km\s+reward$/);
    expect(lines[1]).toMatch(/^c0ffee00\s+beta\s+eval\s+5\s+-\s+failed\s+-\s+-$/);
    expect(lines[2]).toMatch(/^7b00aa11\s+beta\s+train\s+3\s+Chile\s+far\s+2500\.0\s+0\.100$/);
    expect(lines[3]).toMatch(/^3f9a21c0\s+alpha\s+eval\s+17\s+Austria\s+close\s+14\.0\s+0\.912$/);
    // Aligned: every column starts at the same offset on each line.
    const columnStart = (line: string, i: number) => [...line.matchAll(/\S+/g)][i]?.index;
    for (let column = 0; column < 8; column++) expect(new Set(lines.map((l) => columnStart(l, column))).size).toBe(1);
  });

  it('prints one JSON array with full ids', async () => {
    await listCommand({ workspace: await seeded(), json: true });
    const rows = JSON.parse(stdout) as Record<string, unknown>[];
    expect(rows.map((r) => r.episode_id)).toEqual(['c0ffee00-0003', '7b00aa11-0002', '3f9a21c0-0001']);
    expect(rows[2]).toEqual({
      episode_id: '3f9a21c0-0001',
      recorded_at: '2026-01-01T00:00:01.000Z',
      model: 'alpha',
      split: 'eval',
      task_index: 17,
      country: 'Austria',
      verdict: 'close',
      distance_km: 14.04,
      reward: 0.9123,
      state: 'scored',
    });
  });

  it('filters by model, split, country and verdict, and limits', async () => {
    const workspace = await seeded();
    const ids = async (opts: Parameters<typeof listCommand>[0]) => {
      stdout = '';
      await listCommand({ workspace, json: true, ...opts });
      return (JSON.parse(stdout) as { episode_id: string }[]).map((r) => r.episode_id.slice(0, 4));
    };
    expect(await ids({ model: 'beta' })).toEqual(['c0ff', '7b00']);
    expect(await ids({ split: 'train' })).toEqual(['7b00']);
    expect(await ids({ country: 'Austria' })).toEqual(['3f9a']);
    expect(await ids({ verdict: 'far' })).toEqual(['7b00']);
    // By the start of a name, any case, and a country by a code or demonym geolab knows.
    expect(await ids({ model: 'BE' })).toEqual(['c0ff', '7b00']);
    expect(await ids({ country: 'AT' })).toEqual(['3f9a']);
    expect(await ids({ country: 'chilean' })).toEqual(['7b00']);
    expect(await ids({ verdict: 'CL' })).toEqual(['3f9a']);
    expect(await ids({ limit: 1 })).toEqual(['c0ff']);
    expect(await ids({ limit: 0 })).toHaveLength(3);
    stdout = '';
    await listCommand({ workspace, limit: 2 });
    expect(stdout).toContain('2 of 3 episodes');
    stdout = '';
    await listCommand({ workspace, country: 'Peru' });
    expect(stdout).toBe('no episodes match\n');
    await expect(listCommand({ workspace, limit: -1 })).rejects.toThrow(UsageError);
  });
});

describe('geolab episodes import', () => {
  it('imports a file and says how many episodes it brought in', async () => {
    const workspace = tempDir();
    const file = episodesFile(EPISODES);
    await importCommand([file], { workspace });
    expect(stdout).toBe(`${file}: 3 new, 0 already present, in ${workspace}\n`);
    stdout = '';
    await importCommand([file], { workspace });
    expect(stdout).toBe(`${file}: 0 new, 3 already present, in ${workspace}\n`);
  });

  it('reports the counts as JSON, the second time as already present', async () => {
    const workspace = tempDir();
    const file = episodesFile(EPISODES);
    await importCommand([file], { workspace, json: true });
    const first = stdout;
    stdout = '';
    expect(JSON.parse(first)).toEqual({ file, lines: 3, imported: 3, new: 3, already_present: 0, skipped: 0, invalid: [], images: 0, warnings: [], workspace });
    await importCommand([file], { workspace, json: true });
    expect(JSON.parse(stdout)).toEqual({ file, lines: 3, imported: 3, new: 0, already_present: 3, skipped: 0, invalid: [], images: 0, warnings: [], workspace });
  });

  it('stops at an invalid line with exit code 2, or skips it and lists it with --skip-invalid', async () => {
    const workspace = tempDir();
    const file = episodesFile([EPISODES[0] as object, '{oops', EPISODES[1] as object]);
    const error = await importCommand([file], { workspace }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).exitCode).toBe(2);
    expect((error as Error).message).toMatch(new RegExp(`^${file}:2: not valid JSON`));

    await importCommand([file], { workspace, skipInvalid: true });
    expect(stdout).toContain('2 new, 0 already present, skipped 1 invalid line(s)');
    expect(stderr).toMatch(new RegExp(`^${file}:2: skipped: not valid JSON`));
  });

  it('names both lines of an episode_id repeated in the file, or counts it with --skip-invalid', async () => {
    const workspace = tempDir();
    const record = EPISODES[0] as { episode_id: string };
    const file = episodesFile([record, EPISODES[1] as object, record]);
    await expect(importCommand([file], { workspace })).rejects.toThrow(
      `${file}:3, field episode_id: episode_id "${record.episode_id}" is repeated: first on line 1, again on line 3`,
    );
    await importCommand([file], { workspace, skipInvalid: true });
    expect(stdout).toContain('2 new, 0 already present, skipped 1 invalid line(s)');
    expect(stderr).toContain(`${file}:3: skipped: episode_id: episode_id "${record.episode_id}" is repeated: first on line 1, again on line 3`);
  });

  it('warns about an empty file, and reads a file that starts with a byte order mark', async () => {
    const workspace = tempDir();
    const empty = join(tempDir(), 'empty.jsonl');
    writeFileSync(empty, '\n');
    await importCommand([empty], { workspace });
    expect(stderr).toBe(`${empty}: warning: no episodes in file\n`);
    expect(stdout).toBe(`${empty}: 0 new, 0 already present, in ${workspace}\n`);
    stdout = '';
    const bom = episodesFile(EPISODES);
    writeFileSync(bom, '\uFEFF' + readFileSync(bom, 'utf8'));
    await importCommand([bom], { workspace });
    expect(stdout).toBe(`${bom}: 3 new, 0 already present, in ${workspace}\n`);
  });

  it('refuses a file it cannot read with exit code 2', async () => {
    const missing = join(tempDir(), 'missing.jsonl');
    await expect(importCommand([missing], { workspace: tempDir() })).rejects.toMatchObject({ exitCode: 2 });
  });
});
