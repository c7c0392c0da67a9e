/**
 * Country names as users type them (aliases, ISO codes, former ADMIN names) resolved to the Natural
 * Earth ADMIN names task files carry; an unknown name is an error that suggests the closest one.
 */
import { UsageError } from '../core/errors.js';
import { allCountries, countryByAdmin, countryByIso, countryByName } from '../geo/countries.js';

/** The label tasks are grouped under when they carry no country. */
export const UNLABELLED = '(unlabelled)';

/** A task's country label in canonical form: a former ADMIN name becomes today's. */
export function canonicalCountry(label: string | undefined): string {
  if (!label) return UNLABELLED;
  return countryByAdmin(label)?.admin ?? label;
}

/**
 * Resolves a comma-separated list given to `flag`. Labels present in the pool resolve too (a pool
 * may carry a name the table does not know), so every country the user can see can be chosen.
 */
export function resolveCountries(list: string, flag: string, poolCountries: Iterable<string> = []): string[] {
  const known = new Set(poolCountries);
  const out: string[] = [];
  for (const raw of list.split(',')) {
    const name = raw.trim();
    if (name === '') continue;
    const found = known.has(name) ? name : (countryByAdmin(name) ?? countryByIso(name) ?? countryByName(name))?.admin;
    if (!found) {
      const hint = closestName(name, known);
      throw new UsageError(`${flag}: unknown country "${name}"${hint ? `; did you mean "${hint}"?` : ''}`);
    }
    if (!out.includes(found)) out.push(found);
  }
  if (out.length === 0) throw new UsageError(`${flag}: expected a comma-separated list of countries`);
  return out;
}

/** The ADMIN name (or pool label) nearest to `name` by edit distance, ignoring case. */
function closestName(name: string, extra: Set<string>): string | null {
  const key = name.toLowerCase();
  let best: string | null = null;
  let bestDistance = Infinity;
  const consider = (candidate: string, admin: string) => {
    const d = editDistance(key, candidate.toLowerCase());
    if (d < bestDistance) {
      bestDistance = d;
      best = admin;
    }
  };
  for (const c of allCountries()) for (const n of [c.admin, ...c.names]) consider(n, c.admin);
  for (const label of extra) consider(label, label);
  return best;
}

/** Levenshtein distance, one row at a time. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row.push(Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost));
    }
    prev = row;
  }
  return prev[b.length] as number;
}
