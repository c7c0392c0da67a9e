/** Cache misses filled from a loopback server that answers like Mapillary's Graph API and its CDN. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PanoramaSource } from '../../src/env/render/panorama-source.js';
import { mapillaryFetcher, MAX_IMAGE_BYTES } from '../../src/tasks/mapillary.js';
import { MissingPanoramaError } from '../../src/tasks/panoramas.js';
import { tempDir } from '../helpers/fixtures.js';

const TOKEN = 'MLY|unit-secret-77aa01';
let server: Server;
let base: string;
let standard: Buffer;
let original: Buffer;
const asked: string[] = [];
/** Bytes the endless CDN route wrote before the client hung up. */
let endlessSent = 0;
const MiB = 1024 * 1024;

/** Writes 1 MiB chunks (no Content-Length) until the client goes away or 100 MiB are out. */
function endless(res: import('node:http').ServerResponse): void {
  const chunk = Buffer.alloc(MiB, 0xff);
  res.writeHead(200, { 'content-type': 'image/jpeg' });
  const more = () => {
    while (!res.destroyed && endlessSent < 100 * MiB) {
      endlessSent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', more);
    }
    res.end();
  };
  res.on('close', () => res.removeAllListeners('drain'));
  more();
}

beforeAll(async () => {
  standard = await sharp({ create: { width: 256, height: 128, channels: 3, background: '#4080c0' } }).jpeg().toBuffer();
  original = await sharp({ create: { width: 512, height: 256, channels: 3, background: '#c08040' } }).jpeg().toBuffer();
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/cdn/std') return void res.end(standard);
    if (url.pathname === '/cdn/orig') return void res.end(original);
    if (url.pathname === '/hang') return; // never answers
    if (url.pathname === '/cdn/endless') return endless(res);
    if (url.pathname === '/cdn/declared') return void res.writeHead(200, { 'content-length': String(200 * MiB) }).end(); // a lie, cut short
    if (req.headers.authorization !== `OAuth ${TOKEN}`) return void res.writeHead(403).end();
    const field = url.searchParams.get('fields') ?? '';
    asked.push(`${url.pathname.slice(1)}:${field}`);
    const id = url.pathname.slice(1);
    const answer: Record<string, string> = { id };
    if (field === 'thumb_2048_url') answer[field] = `${base}/cdn/std`;
    if (field === 'thumb_original_url' && id === 'withorig') answer[field] = `${base}/cdn/orig`;
    if (id === 'slow') answer[field] = `${base}/hang`;
    if (id === 'endless' || id === 'declared') answer[field] = `${base}/cdn/${id}`;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections(); // the hanging request's too
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('fetching panoramas on a cache miss', () => {
  it('asks thumb_original_url for a narrow view and thumb_2048_url otherwise, writing each into the cache', async () => {
    const dir = tempDir();
    const source = new PanoramaSource(dir, { fetcher: mapillaryFetcher({ token: TOKEN, baseUrl: base }) });
    expect(await source.resolve('withorig', { orig: true })).toBe(join(dir, 'withorig.orig.jpg'));
    expect(readFileSync(join(dir, 'withorig.orig.jpg')).equals(original)).toBe(true);
    expect(await source.resolve('withorig', { orig: false })).toBe(join(dir, 'withorig.jpg'));
    expect(readFileSync(join(dir, 'withorig.jpg')).equals(standard)).toBe(true);
    expect(asked).toEqual(['withorig:thumb_original_url', 'withorig:thumb_2048_url']);
  });

  it('falls back to the 2048 px JPEG when there is no original', async () => {
    const dir = tempDir();
    const source = new PanoramaSource(dir, { fetcher: mapillaryFetcher({ token: TOKEN, baseUrl: base }) });
    expect(await source.resolve('plain', { orig: true })).toBe(join(dir, 'plain.jpg'));
    expect(existsSync(join(dir, 'plain.orig.jpg'))).toBe(false);
  });

  it('a refused token or a silent CDN is a MissingPanoramaError that names why, never the token, and leaves no file', async () => {
    const dir = tempDir();
    const wrong = new PanoramaSource(dir, { fetcher: mapillaryFetcher({ token: 'MLY|wrong-secret-1234', baseUrl: base }) });
    const refused = await wrong.resolve('img', { orig: false }).then(() => new Error('resolved'), (e: unknown) => e as Error);
    expect(refused).toBeInstanceOf(MissingPanoramaError);
    expect(refused.message).toContain('HTTP 403: check MAPILLARY_ACCESS_TOKEN or MAPILLARY_API_KEY');
    expect(refused.message).not.toContain('secret');

    const slow = new PanoramaSource(dir, { fetcher: mapillaryFetcher({ token: TOKEN, baseUrl: base, timeoutMs: 200 }) });
    const timedOut = await slow.resolve('slow', { orig: false }).then(() => new Error('resolved'), (e: unknown) => e as Error);
    expect(timedOut.message).toContain('the image CDN unreachable (no answer within 0.2 s)');
    expect(existsSync(join(dir, 'slow.jpg'))).toBe(false);
    expect(existsSync(join(dir, 'img.jpg'))).toBe(false);
  });

  it('a download past the cap is cut off while streaming: an error naming the image and the cap, nothing cached', async () => {
    const dir = tempDir();
    const source = new PanoramaSource(dir, { fetcher: mapillaryFetcher({ token: TOKEN, baseUrl: base }) });
    const huge = await source.resolve('endless', { orig: false }).then(() => new Error('resolved'), (e: unknown) => e as Error);
    expect(huge).toBeInstanceOf(MissingPanoramaError);
    expect(huge.message).toContain('image endless: the image CDN sent more than 64 MiB (the most downloaded): refused, nothing cached');
    // The client hung up near the cap instead of reading the 100 MiB on offer.
    expect(endlessSent).toBeGreaterThan(MAX_IMAGE_BYTES);
    expect(endlessSent).toBeLessThan(100 * MiB);

    const declared = await source.resolve('declared', { orig: false }).then(() => new Error('resolved'), (e: unknown) => e as Error);
    expect(declared.message).toContain('image declared: the image CDN sent more than 64 MiB');
    // A smaller cap applies the same way to a real image.
    const small = new PanoramaSource(dir, { fetcher: mapillaryFetcher({ token: TOKEN, baseUrl: base, maxImageBytes: 100 }) });
    const capped = await small.resolve('plain', { orig: false }).then(() => new Error('resolved'), (e: unknown) => e as Error);
    expect(capped.message).toContain('image plain: the image CDN sent more than 100 bytes');
    expect(readdirSync(dir)).toEqual([]);
  });
});
