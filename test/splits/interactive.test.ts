import { screen } from '@inquirer/testing/vitest';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_SPLIT_OPTIONS } from '../../src/splits/build.js';
import { asTasks, spreadPool } from './pools.js';

// After @inquirer/testing/vitest, so the prompts it mocks are the ones the flow imports.
const { curateSplits } = await import('../../src/cli/commands/splits-interactive.js');

const pool = asTasks(spreadPool(['France', 'Germany', 'Japan'], 3));
const noFlags = { countries: false, eval: false, evalPerCountry: false, bufferKm: false, contributorExclusive: false };

/** What the flow printed (the preview) while `run` ran. */
function capturePrinted(): () => string {
  const chunks: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    chunks.push(String(chunk));
    return true;
  });
  return () => {
    spy.mockRestore();
    return chunks.join('');
  };
}

afterEach(() => vi.restoreAllMocks());

describe('splits build --interactive', () => {
  it('asks countries with pool counts, sizes, buffer and exclusivity, previews, and returns the choice once confirmed', async () => {
    const printed = capturePrinted();
    const done = curateSplits(pool, DEFAULT_SPLIT_OPTIONS, noFlags);
    expect(screen.getScreen()).toContain('France (3 in the pool)');
    expect(screen.getScreen()).toContain('Japan (3 in the pool)');
    screen.keypress('down');
    screen.keypress('down');
    screen.keypress('space');
    screen.keypress('enter');
    await screen.next();
    expect(screen.getScreen()).toContain('Eval tasks (--eval)');
    screen.type('3');
    screen.keypress('enter');
    await screen.next();
    expect(screen.getScreen()).toContain('--eval-per-country');
    screen.type('2');
    screen.keypress('enter');
    await screen.next();
    expect(screen.getScreen()).toContain('--buffer-km');
    screen.keypress('enter');
    await screen.next();
    expect(screen.getScreen()).toContain('--contributor-exclusive');
    screen.type('y');
    screen.keypress('enter');
    await screen.next();
    expect(screen.getScreen()).toContain('Write eval.jsonl, train.jsonl and manifest.json?');
    const preview = printed();
    expect(preview).toContain('preview: eval 3 tasks');
    expect(preview).toMatch(/country\s+pool\s+eval\s+train\n\s+(France|Germany)\s+3\s+2\s+1\n\s+(France|Germany)\s+3\s+1\s+2\n/);
    expect(preview).toContain('3 country filter');
    expect(preview).not.toContain('Japan');
    screen.keypress('enter');
    const chosen = await done;
    expect(chosen!.options).toMatchObject({ countries: ['France', 'Germany'], evalSize: 3, evalPerCountry: 2, bufferKm: 1, contributorExclusive: true });
    expect(chosen!.result.eval).toHaveLength(3);
  });

  it('asks only what no flag answered, and writes nothing when the preview is declined', async () => {
    const printed = capturePrinted();
    const done = curateSplits(pool, { ...DEFAULT_SPLIT_OPTIONS, evalSize: 2 }, { ...noFlags, countries: true, eval: true, evalPerCountry: true, bufferKm: true });
    expect(screen.getScreen()).toContain('--contributor-exclusive');
    screen.keypress('enter');
    await screen.next();
    screen.type('n');
    screen.keypress('enter');
    expect(await done).toBeNull();
    expect(printed()).toContain('preview: eval 2 tasks');
  });

  it('with --json keeps stdout for the manifest: the preview goes to stderr', async () => {
    const stdout = capturePrinted();
    const stderr: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (stderr.push(String(chunk)), true));
    const allFlags = { countries: true, eval: true, evalPerCountry: true, bufferKm: true, contributorExclusive: true };
    const done = curateSplits(pool, { ...DEFAULT_SPLIT_OPTIONS, evalSize: 2 }, allFlags, true);
    expect(screen.getScreen()).toContain('Write eval.jsonl');
    screen.keypress('enter');
    expect(await done).not.toBeNull();
    expect(stdout()).toBe('');
    expect(stderr.join('')).toContain('preview: eval');
  });

  it('when the self-check fails, asks again only the question that made it fail, keeping the other answers', async () => {
    // One contributor for every task: exclusivity leaves train nothing.
    const solo = asTasks(spreadPool(['France', 'Germany', 'Japan'], 3).map((t) => ({ ...t, username: 'solo' })));
    const printed = capturePrinted();
    const done = curateSplits(solo, DEFAULT_SPLIT_OPTIONS, noFlags);
    screen.keypress('enter');
    await screen.next();
    screen.type('3');
    screen.keypress('enter');
    await screen.next();
    screen.type('1');
    screen.keypress('enter');
    await screen.next();
    screen.type('2');
    screen.keypress('enter');
    await screen.next();
    expect(screen.getScreen()).toContain('No contributor in both splits (--contributor-exclusive)? (y/N)');
    screen.type('y');
    screen.keypress('enter');
    await screen.next();
    // Straight back to exclusivity, the answer given now the default; eval size, cap and buffer not asked again.
    expect(screen.getScreen()).toContain('No contributor in both splits (--contributor-exclusive)? (Y/n)');
    expect(screen.getScreen()).not.toContain('Eval tasks');
    screen.type('n');
    screen.keypress('enter');
    await screen.next();
    expect(screen.getScreen()).toContain('Write eval.jsonl, train.jsonl and manifest.json?');
    const preview = printed();
    expect(preview).toContain('self-check: the train split would be empty: every pool task eval did not take was dropped (6 shared contributor)');
    expect(preview).toContain('Change that answer (the others are kept):');
    expect(preview).toContain('preview: eval 3 tasks, train 6 tasks');
    screen.keypress('enter');
    const chosen = await done;
    expect(chosen!.options).toMatchObject({ countries: undefined, evalSize: 3, evalPerCountry: 1, bufferKm: 2, contributorExclusive: false });
    expect(chosen!.result.problems).toEqual([]);
  });

  it('turns Ctrl-C into an interruption (exit 130)', async () => {
    const done = curateSplits(pool, DEFAULT_SPLIT_OPTIONS, noFlags);
    screen.keypress({ name: 'c', ctrl: true });
    await expect(done).rejects.toMatchObject({ exitCode: 130 });
  });
});
