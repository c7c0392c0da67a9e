import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Workspace } from '../../src/store/index.js';
import { imagePath, imageSize, readImage, sniffImageMime, storeImage } from '../../src/store/images.js';
import { makeJpeg, makePng, sha256 } from '../helpers/episodes.js';
import { tempWorkspaces } from '../helpers/workspaces.js';

const workspace = tempWorkspaces();

function imageRows(ws: Workspace) {
  return ws.db.prepare('SELECT sha256, mime, width, height, bytes, path FROM images').all();
}

describe('image store', () => {
  it('stores a JPEG under its sha256 with its size read from the header', async () => {
    const ws = await workspace();
    const bytes = await makeJpeg(1, 40, 20);
    const sha = storeImage(ws, bytes, 'image/jpeg');
    expect(sha).toBe(sha256(bytes));
    const file = join(ws.paths.images, sha.slice(0, 2), `${sha}.jpg`);
    expect(readFileSync(file).equals(bytes)).toBe(true);
    expect(imagePath(ws, sha)).toBe(file);
    expect(imageRows(ws)).toEqual([
      { sha256: sha, mime: 'image/jpeg', width: 40, height: 20, bytes: bytes.length, path: `${sha.slice(0, 2)}/${sha}.jpg` },
    ]);
  });

  it('stores a PNG as .png with its size', async () => {
    const ws = await workspace();
    const bytes = await makePng(2, 24, 12);
    const sha = storeImage(ws, bytes, 'image/png');
    expect(imagePath(ws, sha)).toMatch(new RegExp(`${sha}\\.png$`));
    expect(imageRows(ws)).toMatchObject([{ mime: 'image/png', width: 24, height: 12 }]);
  });

  it('writes the same bytes once: one file, one row, and no temp files left', async () => {
    const ws = await workspace();
    const bytes = await makeJpeg(3);
    const first = storeImage(ws, bytes, 'image/jpeg');
    expect(storeImage(ws, Buffer.from(bytes), 'image/jpeg')).toBe(first);
    expect(imageRows(ws)).toHaveLength(1);
    expect(readdirSync(join(ws.paths.images, first.slice(0, 2)))).toEqual([`${first}.jpg`]);
  });

  it('rewrites a file deleted behind its row', async () => {
    const ws = await workspace();
    const bytes = await makeJpeg(4);
    const sha = storeImage(ws, bytes, 'image/jpeg');
    rmSync(imagePath(ws, sha) as string);
    storeImage(ws, bytes, 'image/jpeg');
    expect(readImage(ws, sha)?.equals(bytes)).toBe(true);
  });

  it('reads images back, and nothing for unknown or malformed hashes', async () => {
    const ws = await workspace();
    const bytes = await makePng(5);
    const sha = storeImage(ws, bytes, 'image/png');
    expect(readImage(ws, sha)?.equals(bytes)).toBe(true);
    expect(readImage(ws, 'f'.repeat(64))).toBeUndefined();
    expect(imagePath(ws, '../../geolab.db')).toBeUndefined();
    expect(existsSync(ws.paths.images)).toBe(true);
  });

  it('knows JPEG and PNG by their magic numbers and leaves the size of anything else unknown', async () => {
    expect(sniffImageMime(await makeJpeg(6))).toBe('image/jpeg');
    expect(sniffImageMime(await makePng(6))).toBe('image/png');
    expect(sniffImageMime(Buffer.from('GIF89a'))).toBeUndefined();
    expect(imageSize(Buffer.from('not an image at all, really'), 'image/jpeg')).toBeUndefined();
    expect(imageSize(Buffer.from('not an image at all, really'), 'image/png')).toBeUndefined();
    expect(imageSize((await makeJpeg(6, 7, 5)).subarray(0, 20), 'image/jpeg')).toBeUndefined();
  });
});
