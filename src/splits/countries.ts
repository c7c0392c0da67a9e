/**
 * Country names as users type them (aliases, ISO codes, demonyms, former ADMIN names) resolved to the Natural
 * Earth ADMIN names task files carry; an unknown name is an error that suggests the closest one.
 */
import { editDistance, UsageError } from '../core/errors.js';
import { countriesNamed, countryByAdmin, countrySpellings } from '../geo/countries.js';

/** The label tasks are grouped under when they carry no country. */
export const UNLABELLED = '(unlabelled)';

/** A task's country label in canonical form: a former ADMIN name becomes today's. */
export function canonicalCountry(label: string | undefined): string {
  if (!label) return UNLABELLED;
  return countryByAdmin(label)?.admin ?? label;
}

/** Pool countries listed in full in a "did you mean" when no spelling is close; more are not listed. */
const LISTED_POOL_COUNTRIES = 12;

/**
 * Resolves a comma-separated list given to `flag`: names, aliases, ISO codes or demonyms, as the
 * episode filters take them (src/geo/countries.ts, `countriesNamed`). Labels present in the pool
 * resolve too (a pool may carry a name the table does not know), so every country the user can see
 * can be chosen. Every unknown or ambiguous entry is named in one error, each with what it may mean.
 */
export function resolveCountries(list: string, flag: string, poolCountries: Iterable<string> = []): string[] {
  const known = new Set(poolCountries);
  const out: string[] = [];
  const unknown: { name: string; why: string; ambiguous?: true }[] = [];
  for (const raw of list.split(',')) {
    const name = raw.trim();
    if (name === '') continue;
    const found = known.has(name) ? [name] : countriesNamed(name).map((c) => c.admin);
    if (found.length === 1) {
      if (!out.includes(found[0]!)) out.push(found[0]!);
    } else if (found.length > 1) {
      unknown.push({ name, why: `names ${found.length} countries; did you mean ${found.map((c) => `"${c}"`).join(' or ')}?`, ambiguous: true });
    } else {
      unknown.push({ name, why: didYouMean(name, known) });
    }
  }
  const [first] = unknown;
  if (unknown.length === 1) throw new UsageError(`${flag}: ${first!.ambiguous ? `"${first!.name}" ${first!.why}` : `unknown country "${first!.name}"; ${first!.why}`}`);
  if (unknown.length > 1) {
    const what = unknown.some((u) => u.ambiguous) ? 'countries unknown or ambiguous' : 'unknown countries';
    throw new UsageError(`${flag}: ${unknown.length} ${what}: ${unknown.map((u) => `"${u.name}" (${u.why})`).join(', ')}`);
  }
  if (out.length === 0) throw new UsageError(`${flag}: expected a comma-separated list of countries (names, aliases, ISO codes or demonyms)`);
  return out;
}

/**
 * What an unknown `name` may have meant, as a phrase: the country (ADMIN name, or pool label) with the spelling
 * nearest by edit distance, ignoring case, when it is close; else the pool's countries.
 */
function didYouMean(name: string, pool: Set<string>): string {
  const key = name.toLowerCase();
  let best: string | null = null;
  let bestDistance = Infinity;
  const consider = (candidate: string, country: string) => {
    const d = editDistance(key, candidate.toLowerCase());
    if (d < bestDistance) {
      bestDistance = d;
      best = country;
    }
  };
  for (const { spelling, admin } of countrySpellings()) consider(spelling, admin);
  for (const label of pool) consider(label, label);
  // Further than this, the nearest spelling is a guess that misleads more than it helps.
  if (best !== null && bestDistance <= Math.max(2, Math.floor(name.length * 0.4))) return `did you mean "${best}"?`;
  const listed = [...pool].filter((c) => c !== UNLABELLED).sort();
  if (listed.length === 0) return 'no country has a name, alias, ISO code or demonym close to it';
  const shown = listed.slice(0, LISTED_POOL_COUNTRIES).join(', ');
  return `nothing close; did you mean one of the pool's countries: ${shown}${listed.length > LISTED_POOL_COUNTRIES ? `, … (${listed.length} in all; geolab tasks stats lists them)` : ''}?`;
}
