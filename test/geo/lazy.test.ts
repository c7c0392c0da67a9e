import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { coderSource } from '../../src/geo/coder-borders.js';

// country-coder's borders come from the build's file (coder-borders.ts) or, without it, the package.
const loadedCountryCoder = (): boolean =>
  coderSource() !== null || Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('country-coder'));

describe('src/geo loads its data lazily', () => {
  it('loads no data set at import, only at the first lookup', async () => {
    const geo = await import('../../src/geo/index.js');
    expect(loadedCountryCoder()).toBe(false);
    expect(geo.countryAt(50.0755, 14.4378).country).toBe('Czechia');
    expect(loadedCountryCoder()).toBe(true);
  });
});
