/**
 * sharp's patch (patches/sharp+0.35.5.patch, applied at install by patch-package): loading sharp as
 * geolab does (`require`, src/vendor/commonjs.ts) must not load semver, some 12 ms of CPU at the
 * start of every process that draws or encodes an image. The one value sharp derived from it at
 * load, the least libvips version it accepts, is still there when asked for, and sharp still works.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const script = `
const { createRequire } = require('node:module');
const { dirname, join } = require('node:path');
const req = createRequire(join(process.cwd(), 'package.json'));
const sharp = req('sharp');
const semverAtLoad = Object.keys(require.cache).some((file) => file.includes('/node_modules/semver/'));
const libvips = req(join(dirname(req.resolve('sharp')), 'libvips.cjs'));
sharp({ create: { width: 4, height: 3, channels: 3, background: '#336699' } }).png().toBuffer().then(async (png) => {
  const { width, height } = await sharp(png).metadata();
  const minimum = libvips.minimumLibvipsVersion;
  const wanted = req(join(dirname(req.resolve('sharp')), '..', 'package.json')).config.libvips;
  process.stdout.write(JSON.stringify({ semverAtLoad, minimum, wanted, width, height }));
});
`;

describe('sharp, as patched', () => {
  it('loads without semver, keeps its least libvips version on demand, and draws', () => {
    const out = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8', cwd: process.cwd() })) as Record<string, unknown>;
    expect(out.semverAtLoad).toBe(false);
    expect({ width: out.width, height: out.height }).toEqual({ width: 4, height: 3 });
    // The package's own ">=8.18.7" made a bare version, as semver.coerce makes it.
    expect(String(out.wanted)).toContain(String(out.minimum));
    expect(out.minimum).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
