import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildOutlineLines, encodeOutlineLines, readOutlineLines } from '../../src/geo/atlas.js';
import { decodePlaceTable, encodePlaceTable, readPlaceTable, type PlaceTable } from '../../src/geo/cities.js';
import { buildOutlineIndex, encodeOutlineIndex, readOutlineIndex } from '../../src/geo/outlines.js';
import { decodeTownTable, encodeTownNames, readTownTable } from '../../src/geo/place-names.js';
import { buildTownGrid, encodeTownGrid, readTownGrid } from '../../src/geo/town-grid.js';
import { tempDir } from '../helpers/fixtures.js';

/**
 * The tables `npm run build` writes to dist/ (src/geo/build-file.ts): each file must read back as
 * exactly what building from the package's data gives, and be refused when it cannot.
 */
describe("the build's 10m outline index file", () => {
  const dir = tempDir('geolab-outlines-file-');
  const file = join(dir, 'outlines-10m.bin');
  writeFileSync(file, encodeOutlineIndex());

  it('holds exactly the index built from the atlas: every array, the grid and the countries', () => {
    const built = buildOutlineIndex('10m');
    const read = readOutlineIndex(file);
    expect(read).not.toBeNull();
    expect(read!.grid.cellDeg).toBe(built.grid.cellDeg);
    expect(read!.countries).toEqual(built.countries);
    for (const key of ['edges', 'edgeOwner', 'cellStart', 'cellEdges', 'cellOwner'] as const) {
      expect(read![key].constructor).toBe(built[key].constructor);
      expect(read![key].length, key).toBe(built[key].length);
      expect(Buffer.from(read![key].buffer, read![key].byteOffset, read![key].byteLength).equals(Buffer.from(built[key].buffer, built[key].byteOffset, built[key].byteLength)), key).toBe(true);
    }
    expect(read!.ownerOf.get(built.countries[5]!)).toBe(5);
  });

  it('is refused (null, so the index is built) when missing, of another format, truncated, or made from another atlas file', () => {
    expect(readOutlineIndex(join(dir, 'nothing-here.bin'))).toBeNull();
    const bytes = readFileSync(file);
    const other = join(dir, 'other.bin');
    writeFileSync(other, Buffer.concat([Buffer.from('XXXX'), bytes.subarray(4)]));
    expect(readOutlineIndex(other)).toBeNull();
    writeFileSync(other, bytes.subarray(0, bytes.length - 1000));
    expect(readOutlineIndex(other)).toBeNull();
    // The header rewritten as is is read; with another atlas file's size, or another country list, it is refused.
    const withHeader = (edit: (header: { source: { size: number }; countries: string[] }) => object): Buffer => {
      const headerLength = bytes.readUInt32LE(4);
      const header = JSON.parse(bytes.toString('utf8', 8, 8 + headerLength)) as { source: { size: number }; countries: string[] };
      const json = Buffer.from(JSON.stringify(edit(header)));
      const lengthField = Buffer.alloc(4);
      lengthField.writeUInt32LE(json.length);
      const pad = (8 - ((8 + json.length) % 8)) % 8; // the arrays stay 8-byte aligned
      return Buffer.concat([bytes.subarray(0, 4), lengthField, json, Buffer.alloc(pad), bytes.subarray(Math.ceil((8 + headerLength) / 8) * 8)]);
    };
    writeFileSync(other, withHeader((h) => h));
    expect(readOutlineIndex(other)).not.toBeNull();
    writeFileSync(other, withHeader((h) => ({ ...h, source: { ...h.source, size: h.source.size + 1 } })));
    expect(readOutlineIndex(other)).toBeNull();
    writeFileSync(other, withHeader((h) => ({ ...h, countries: [...h.countries].reverse() })));
    expect(readOutlineIndex(other)).toBeNull();
  });
});

describe("the build's place table file", () => {
  const dir = tempDir('geolab-places-file-');
  const file = join(dir, 'places.bin');
  writeFileSync(file, encodePlaceTable());

  it('holds exactly the columns decoded from cities.pbf, and every place\'s strings in a blob of its own', () => {
    const decoded = decodePlaceTable();
    const read = readPlaceTable(file);
    expect(read).not.toBeNull();
    expect(read!.count).toBe(decoded.count);
    expect(read!.count).toBeGreaterThan(100_000);
    for (const key of ['lat', 'lon', 'population', 'capital'] as const) {
      expect(read![key].constructor, key).toBe(decoded[key].constructor);
      expect(Array.from(read![key]), key).toEqual(Array.from(decoded[key]));
    }
    const text = (t: PlaceTable, i: number, start: Uint32Array, end: Uint32Array) => t.buf.toString('utf8', start[i], end[i]);
    const differ: string[] = [];
    for (let i = 0; i < decoded.count; i++) {
      for (const [what, start, end] of [['name', 'nameStart', 'nameEnd'], ['country', 'iso2Start', 'iso2End'], ['admin1', 'adminStart', 'adminEnd']] as const) {
        const got = text(read!, i, read![start], read![end]);
        const want = text(decoded, i, decoded[start], decoded[end]);
        if (got !== want) differ.push(`${what} of place ${i}: ${JSON.stringify(got)}, not ${JSON.stringify(want)}`);
      }
    }
    expect(differ.slice(0, 5)).toEqual([]);
    // Each string once: the blob is a fraction of the pbf, which is not needed to read the table.
    expect(read!.buf.length).toBeLessThan(decoded.buf.length / 2);
  });

  it('is refused when missing, truncated or of another format', () => {
    expect(readPlaceTable(join(dir, 'nothing-here.bin'))).toBeNull();
    const bytes = readFileSync(file);
    const other = join(dir, 'other.bin');
    writeFileSync(other, bytes.subarray(0, bytes.length - 8));
    expect(readPlaceTable(other)).toBeNull();
    writeFileSync(other, Buffer.concat([Buffer.from('GOI1'), bytes.subarray(4)]));
    expect(readPlaceTable(other)).toBeNull();
  });
});

describe("the build's outline lines file", () => {
  it('holds exactly the 110m and 50m coastlines and borders built from the atlas, and is refused when truncated', () => {
    const dir = tempDir('geolab-lines-file-');
    const file = join(dir, 'outline-lines.bin');
    writeFileSync(file, encodeOutlineLines());
    const read = readOutlineLines(file);
    expect([...read!.keys()]).toEqual(['110m', '50m']);
    for (const scale of ['110m', '50m'] as const) {
      const built = buildOutlineLines(scale);
      for (const kind of ['coast', 'borders'] as const) {
        expect(Array.from(read!.get(scale)![kind].points), `${scale} ${kind}`).toEqual(Array.from(built[kind].points));
        expect(Array.from(read!.get(scale)![kind].start), `${scale} ${kind}`).toEqual(Array.from(built[kind].start));
      }
    }
    const bytes = readFileSync(file);
    writeFileSync(file, bytes.subarray(0, bytes.length - 16));
    expect(readOutlineLines(file)).toBeNull();
  });
});

describe("the build's town names file", () => {
  const dir = tempDir('geolab-town-names-file-');
  const file = join(dir, 'town-names.bin');
  writeFileSync(file, encodeTownNames());
  const { count } = decodePlaceTable();

  it('holds exactly the unzipped table and its index of lines by place', () => {
    const decoded = decodeTownTable(count);
    const read = readTownTable(file, count);
    expect(read).not.toBeNull();
    expect(read!.text.equals(decoded.text)).toBe(true);
    expect(read!.lineStart.length).toBe(count);
    expect(Buffer.from(read!.lineStart.buffer, read!.lineStart.byteOffset, read!.lineStart.byteLength).equals(Buffer.from(decoded.lineStart.buffer, decoded.lineStart.byteOffset, decoded.lineStart.byteLength))).toBe(true);
  });

  it('is refused when missing, truncated, of another format, or indexed for another number of places', () => {
    expect(readTownTable(join(dir, 'nothing-here.bin'), count)).toBeNull();
    expect(readTownTable(file, count + 1)).toBeNull();
    const bytes = readFileSync(file);
    const other = join(dir, 'other.bin');
    writeFileSync(other, bytes.subarray(0, bytes.length - 8));
    expect(readTownTable(other, count)).toBeNull();
    writeFileSync(other, Buffer.concat([Buffer.from('GPT1'), bytes.subarray(4)]));
    expect(readTownTable(other, count)).toBeNull();
  });
});

describe("the build's town grid file", () => {
  const dir = tempDir('geolab-town-grid-file-');
  const file = join(dir, 'town-grid.bin');
  writeFileSync(file, encodeTownGrid());
  const table = decodePlaceTable();

  it('holds exactly the grid sorted from the place table', () => {
    const built = buildTownGrid(table);
    const read = readTownGrid(file, table);
    expect(read).not.toBeNull();
    expect(read!.table).toBe(table);
    expect(read!.ids.length).toBe(table.count);
    expect(Array.from(read!.ids)).toEqual(Array.from(built.ids));
    expect(Array.from(read!.cellStart)).toEqual(Array.from(built.cellStart));
  });

  it('is refused when missing, truncated, of another format, or for another number of places', () => {
    expect(readTownGrid(join(dir, 'nothing-here.bin'), table)).toBeNull();
    expect(readTownGrid(file, { ...table, count: table.count - 1 })).toBeNull();
    const bytes = readFileSync(file);
    const other = join(dir, 'other.bin');
    writeFileSync(other, bytes.subarray(0, bytes.length - 8));
    expect(readTownGrid(other, table)).toBeNull();
    writeFileSync(other, Buffer.concat([Buffer.from('GTN1'), bytes.subarray(4)]));
    expect(readTownGrid(other, table)).toBeNull();
  });
});
