/** docs/training.md's table "The recipe against TRL's defaults", read as the tests compare it. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../src/paths.js';

export interface RecipeRow {
  argument: string;
  published: string;
  geolab: string;
  trlDefault: string;
}

export const NOT_PASSED = 'not passed';

export function recipeTable(): RecipeRow[] {
  const text = readFileSync(join(PACKAGE_ROOT, 'docs', 'training.md'), 'utf8');
  const start = text.indexOf('| argument | published | geolab | TRL\'s default |');
  if (start < 0) throw new Error('docs/training.md has no recipe table');
  const rows: RecipeRow[] = [];
  for (const line of text.slice(start).split('\n').slice(2)) {
    if (!line.startsWith('|')) break;
    const cells = line.split('|').slice(1, -1).map((c) => c.trim());
    const name = /^`([a-z_0-9]+)`$/.exec(cells[0] ?? '');
    if (!name) continue; // the LoRA rows: several arguments in one
    rows.push({ argument: name[1] as string, published: cells[1] as string, geolab: cells[2] as string, trlDefault: cells[3] as string });
  }
  return rows;
}

/** A cell that is one backticked JSON value, parsed; undefined for prose. */
export function cellValue(cell: string): { value: unknown } | undefined {
  const m = /^`([^`]+)`$/.exec(cell);
  if (!m) return undefined;
  try {
    return { value: JSON.parse(m[1] as string) };
  } catch {
    return undefined;
  }
}
