/**
 * The real binary over hostile run trees (a symlink loop, a link to /proc, a second path to one
 * file, a dangling link) and a JSONL file with one 80 MiB line: docs/reliability.md.
 */
import { closeSync, mkdirSync, openSync, readFileSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { geolab, spawnGeolab, type CliResult } from '../helpers/cli.js';
import { completedRecord } from '../helpers/episodes.js';
import { makeTask, tempDir } from '../helpers/fixtures.js';

const episodeLine = (index: number) => JSON.stringify(completedRecord({ index, id: `walk-${index}`, country: 'Chile' }));

describe('run trees with symlinks', () => {
  let root: string;
  let dir: string;
  beforeAll(() => {
    dir = tempDir();
    root = join(dir, 'tree');
    for (const run of ['run-a', 'run-b', 'run-c']) mkdirSync(join(root, run), { recursive: true });
    writeFileSync(join(root, 'run-a', 'episodes.jsonl'), [0, 1].map(episodeLine).join('\n') + '\n');
    symlinkSync('..', join(root, 'run-a', 'loop'));
    symlinkSync('/proc', join(root, 'run-a', 'proc'));
    symlinkSync('../run-a/episodes.jsonl', join(root, 'run-b', 'episodes.jsonl'));
    symlinkSync('../gone', join(root, 'run-c', 'episodes.jsonl'));
  });

  const expectSkipped = (stderr: string) => {
    const lines = stderr.split('\n').filter((l) => l.startsWith('geolab: skipped '));
    expect(lines).toEqual([
      `geolab: skipped ${join(root, 'run-a', 'loop')}: a symlink to a directory, not followed`,
      `geolab: skipped ${join(root, 'run-a', 'proc')}: a symlink to a directory in /proc, not followed`,
      `geolab: skipped ${join(root, 'run-b', 'episodes.jsonl')}: a symlink to the same file as ${join(root, 'run-a', 'episodes.jsonl')}, read once`,
      `geolab: skipped ${join(root, 'run-c', 'episodes.jsonl')}: a symlink to nothing (dangling)`,
    ]);
  };

  it('eval report reads each episode once and says what it skipped', () => {
    const started = performance.now();
    const r = geolab(['eval', 'report', root, '--json'], { home: join(dir, 'home-report') });
    expect(performance.now() - started).toBeLessThan(20_000);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as { arms: { episodes: number }[] };
    expect(report.arms.map((a) => a.episodes)).toEqual([2]);
    expectSkipped(r.stderr);
  });

  it('audit --episodes reads each episode once and says what it skipped', () => {
    const once = join(dir, 'once');
    mkdirSync(join(once, 'run-a'), { recursive: true });
    writeFileSync(join(once, 'run-a', 'episodes.jsonl'), readFileSync(join(root, 'run-a', 'episodes.jsonl')));
    const audit = (path: string) => geolab(['audit', '--episodes', path, '--json', '--baseline', join(dir, `baseline-${path.length}.json`)], { home: join(dir, 'home-audit') });
    const started = performance.now();
    const r = audit(root);
    expect(performance.now() - started).toBeLessThan(20_000);
    expect([0, 1]).toContain(r.code);
    expectSkipped(r.stderr);
    // The same counts as the tree without its links.
    const plain = audit(once);
    const summary = (res: CliResult) => {
      const { prompts, turns, messages, findings } = (JSON.parse(res.stdout) as { summary: Record<string, number> }).summary;
      return { prompts, turns, messages, findings };
    };
    expect(summary(r)).toEqual(summary(plain));
    expect(summary(r).prompts).toBeGreaterThan(0);
  });
});

/** One line of `bytes` bytes of JSON (a long string value), written a MiB at a time. */
function writeWithHugeLine(file: string, good: string, bytes: number): void {
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, `${good}\n{"x":"`);
    const chunk = Buffer.alloc(1 << 20, 'a');
    for (let left = bytes; left > 0; left -= chunk.length) writeSync(fd, chunk, 0, Math.min(left, chunk.length));
    writeSync(fd, `"}\n${good}\n`);
  } finally {
    closeSync(fd);
  }
}

/** Runs the binary, sampling its resident memory (VmRSS) while it runs; the peak in MiB. */
async function runSampled(args: string[], home: string): Promise<CliResult & { peakMib: number }> {
  const { child, done } = spawnGeolab(args, { home, timeoutMs: 30_000 });
  let peakKb = 0;
  const sample = () => {
    try {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0);
      peakKb = Math.max(peakKb, kb);
    } catch {
      // gone
    }
  };
  const timer = setInterval(sample, 10);
  try {
    const result = await done;
    return { ...result, peakMib: peakKb / 1024 };
  } finally {
    clearInterval(timer);
  }
}

describe('a JSONL line of 80 MiB', () => {
  const dir = tempDir();
  const prompt = JSON.stringify({ id: 'p1', task_id: 'fx-00000', messages: [{ role: 'user', content: 'Where is this?' }] });
  const cases: [string, string, (file: string) => string[]][] = [
    ['audit --prompts', prompt, (f) => ['audit', '--prompts', f, '--json', '--baseline', join(dir, 'baseline.json')]],
    ['episodes import', episodeLine(7), (f) => ['episodes', 'import', f]],
    ['eval report', episodeLine(8), (f) => ['eval', 'report', f]],
    ['tasks import', JSON.stringify(makeTask(0)), (f) => ['tasks', 'import', f, '--name', 'huge']],
  ];

  it.each(cases)('%s: exit 2 naming file:2 and the cap, in bounded memory', { timeout: 40_000 }, async (name, good, args) => {
    const file = join(dir, `${name.replace(/\W+/g, '-')}.jsonl`);
    writeWithHugeLine(file, good, 80 << 20);
    const r = await runSampled(args(file), join(dir, `home-${name.replace(/\W+/g, '-')}`));
    expect(r.stderr).not.toMatch(/unexpected error/);
    expect(r.stderr).toContain(`${file}:2: line longer than the cap of 64 MiB`);
    expect(r.code).toBe(2);
    expect(r.peakMib).toBeGreaterThan(0);
    expect(r.peakMib).toBeLessThan(400);
  });
});
