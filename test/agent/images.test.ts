/**
 * Images on their way to a model (docs/sweeps.md): a plain JPEG that fits goes as it is; anything
 * else is shrunk and re-encoded without metadata. The header check is compared with sharp's own
 * reading of random JPEGs, with and without metadata blocks.
 */
import fc from 'fast-check';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { plainJpegWithin, prepareImage } from '../../src/agent/images.js';
import { imageMetadata } from '../../src/audit/images.js';

const pixels = (width: number, height: number) => sharp({ create: { width, height, channels: 3, background: { r: 40, g: 120, b: 200 } } });

/** A JPEG with a comment segment spliced in after SOI (sharp writes none). */
function withComment(jpeg: Buffer, text: string): Buffer {
  const body = Buffer.from(text, 'latin1');
  const segment = Buffer.alloc(4 + body.length);
  segment.writeUInt16BE(0xfffe, 0);
  segment.writeUInt16BE(body.length + 2, 2);
  body.copy(segment, 4);
  return Buffer.concat([jpeg.subarray(0, 2), segment, jpeg.subarray(2)]);
}

describe('prepareImage', () => {
  it('sends a plain JPEG that fits as it is', async () => {
    const jpeg = await pixels(448, 300).jpeg().toBuffer();
    const prepared = await prepareImage(jpeg, 448);
    expect(prepared.bytes).toBe(jpeg);
    expect(prepared.mime).toBe('image/jpeg');
  });

  it('re-encodes one with EXIF or a comment, and shrinks one too large', async () => {
    const exif = await pixels(100, 80).jpeg().withExif({ IFD0: { Artist: 'someone' } }).toBuffer();
    const commented = withComment(await pixels(100, 80).jpeg().toBuffer(), 'taken near Lyon');
    for (const bytes of [exif, commented]) {
      const prepared = await prepareImage(bytes, 448);
      expect(prepared.bytes).not.toBe(bytes);
      expect(imageMetadata(prepared.bytes)).toEqual([]);
      expect(prepared.bytes.includes(Buffer.from('Lyon'))).toBe(false);
    }
    const large = await prepareImage(await pixels(640, 640).jpeg().toBuffer(), 448);
    expect(await sharp(large.bytes).metadata()).toMatchObject({ width: 448, height: 448, format: 'jpeg' });
  });

  it('turns a PNG into a JPEG and refuses a truncated JPEG the pass-through', async () => {
    const png = await prepareImage(await pixels(50, 50).png().toBuffer(), 448);
    expect((await sharp(png.bytes).metadata()).format).toBe('jpeg');
    const jpeg = await pixels(64, 64).jpeg().toBuffer();
    expect(plainJpegWithin(jpeg, 64)).toBe(true);
    expect(plainJpegWithin(jpeg.subarray(0, jpeg.length - 10), 64)).toBe(false);
    expect(plainJpegWithin(jpeg, 63)).toBe(false);
  });

  it('agrees with sharp on random JPEGs: plain and within the size exactly when sharp reads no metadata block and a size that fits', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 96 }),
        fc.integer({ min: 1, max: 96 }),
        fc.integer({ min: 1, max: 100 }),
        fc.constantFrom('none', 'exif', 'icc', 'comment', 'progressive'),
        async (width, height, limit, extra) => {
          let image = pixels(width, height);
          if (extra === 'exif') image = image.withExif({ IFD0: { ImageDescription: 'x' } });
          if (extra === 'icc') image = image.withIccProfile('p3');
          let bytes: Buffer = await image.jpeg({ progressive: extra === 'progressive' }).toBuffer();
          if (extra === 'comment') bytes = withComment(bytes, 'c');
          const meta = await sharp(bytes).metadata();
          // sharp does not report a JPEG's comment: the test knows it spliced one in. An ICC profile
          // (APP2) describes colour, not where: it may pass.
          const expected = !meta.exif && !meta.xmp && !meta.iptc && extra !== 'comment' && meta.width! <= limit && meta.height! <= limit;
          expect(plainJpegWithin(bytes, limit)).toBe(expected);
        },
      ),
      { numRuns: 60 },
    );
  });
});
