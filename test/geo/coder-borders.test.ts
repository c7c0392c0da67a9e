import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { encodeBorders, readBorders, type CoderFeature } from '../../src/geo/coder-borders.js';
import { tempDir } from '../helpers/fixtures.js';

const require = createRequire(import.meta.url);
const coderPath = require.resolve('@rapideditor/country-coder');
const coder = require(coderPath) as { featuresContaining(location: [number, number]): CoderFeature[] };

function fromFile(): (lon: number, lat: number) => CoderFeature | null {
  const file = join(tempDir('geolab-coder-borders-'), 'borders.bin');
  writeFileSync(file, encodeBorders(coderPath));
  const lookup = readBorders(file, coderPath);
  if (!lookup) throw new Error('the borders file was refused');
  return lookup;
}

describe("the build's country-coder borders", () => {
  it("name country-coder's own smallest feature everywhere: a world grid, and a fine one over Europe's and Asia's borders", () => {
    const lookup = fromFile();
    const points: [number, number][] = [];
    // Off-integer steps, so points fall inside cells rather than on rounded border vertices.
    for (let lat = -89.7; lat < 90; lat += 0.9) for (let lon = -179.8; lon < 180; lon += 0.9) points.push([lon, lat]);
    for (let lat = 35.03; lat < 60; lat += 0.13) for (let lon = -10.07; lon < 40; lon += 0.13) points.push([lon, lat]);
    for (let lat = 5.01; lat < 35; lat += 0.17) for (let lon = 60.02; lon < 125; lon += 0.17) points.push([lon, lat]);
    // Points on enclaves, islands and carve-outs by name.
    points.push([7.4246, 43.7384], [12.4534, 41.9029], [12.4578, 43.9424], [4.9234, 51.4458], [33.0, 34.6], [33.8, 35.2], [114.17, 22.32], [113.54, 22.19], [-5.35, 36.14], [45.0, 10.0]);
    let differ = 0;
    const samples: string[] = [];
    for (const [lon, lat] of points) {
      const want = coder.featuresContaining([lon, lat])[0] ?? null;
      const got = lookup(lon, lat);
      if (want?.properties.id !== got?.properties.id) {
        differ++;
        if (samples.length < 5) samples.push(`${lon},${lat}: ${want?.properties.id} vs ${got?.properties.id}`);
      } else if (want && got && JSON.stringify(got.properties) !== JSON.stringify({ id: want.properties.id, iso1A2: want.properties.iso1A2, groups: want.properties.groups, country: want.properties.country })) {
        differ++;
        if (samples.length < 5) samples.push(`${lon},${lat}: ${JSON.stringify(got.properties)}`);
      }
    }
    expect(samples).toEqual([]);
    expect(differ).toBe(0);
    expect(points.length).toBeGreaterThan(150_000);
  }, 60_000);

  it('are refused when missing, or made from another package file (an upgrade without a rebuild)', () => {
    const dir = tempDir('geolab-coder-borders-');
    expect(readBorders(join(dir, 'none.bin'), coderPath)).toBeNull();
    const file = join(dir, 'borders.bin');
    writeFileSync(file, encodeBorders(coderPath));
    expect(readBorders(file, require.resolve('which-polygon', { paths: [coderPath] }))).toBeNull();
    writeFileSync(file, 'not a borders file');
    expect(readBorders(file, coderPath)).toBeNull();
  });
});
