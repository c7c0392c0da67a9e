/** What a sweep wrote under its output folder, read as a test checks it (docs/sweeps.md). */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Every episodes.jsonl under the folder, at any depth (pass-<p>/shard-<i>/... included). */
export function episodeFiles(out: string): string[] {
  return (readdirSync(out, { recursive: true }) as string[]).filter((f) => f.endsWith('episodes.jsonl')).map((f) => join(out, f));
}

/** The complete lines of the tree's episode files, parsed (a line still being appended is left out). */
export function sweepRecords<T>(out: string): T[] {
  return episodeFiles(out).flatMap((file) => {
    const text = readFileSync(file, 'utf8');
    return text
      .slice(0, text.lastIndexOf('\n') + 1)
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as T);
  });
}
