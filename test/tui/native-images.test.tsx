import { afterEach, describe, expect, it, vi } from 'vitest';

// Ink decides at import whether it runs under CI (and then writes no frames but the last): these
// tests read the frames Ink writes, as in a terminal.
vi.hoisted(() => {
  delete process.env.CI;
  delete process.env.CONTINUOUS_INTEGRATION;
});

import { Box, render, Text, type Instance } from 'ink';
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import sharp from 'sharp';
import { InlineImage } from '../../src/tui/components/InlineImage.js';
import { ThemeContext } from '../../src/tui/contexts/ThemeContext.js';
import {
  atBox,
  imageProtocolFor,
  imagesSettingFromEnv,
  iterm2Image,
  kittyDelete,
  kittyImage,
  kittyPlacement,
  type ImageProtocol,
} from '../../src/tui/images/native.js';
import { ImageProtocolContext } from '../../src/tui/images/useNativeImage.js';
import { createTheme } from '../../src/tui/theme.js';
import { tick } from './render.js';

const ESC = '\u001b';

describe('which terminals get native images', () => {
  const auto = (env: NodeJS.ProcessEnv) => imageProtocolFor(env, 'auto', true);

  it('kitty and Ghostty speak kitty\'s protocol, iTerm2 and WezTerm iTerm2\'s', () => {
    expect(auto({ TERM: 'xterm-kitty' })).toBe('kitty');
    expect(auto({ TERM: 'xterm-256color', KITTY_WINDOW_ID: '3' })).toBe('kitty');
    expect(auto({ TERM_PROGRAM: 'ghostty', TERM: 'xterm-256color' })).toBe('kitty');
    expect(auto({ TERM: 'xterm-ghostty' })).toBe('kitty');
    expect(auto({ TERM_PROGRAM: 'iTerm.app', TERM: 'xterm-256color' })).toBe('iterm2');
    expect(auto({ TERM_PROGRAM: 'WezTerm', TERM: 'xterm-256color' })).toBe('iterm2');
    expect(auto({ TERM: 'xterm-256color', COLORTERM: 'truecolor' })).toBeNull();
  });

  it('inside tmux or screen, and off a terminal, half-blocks unless native is forced', () => {
    expect(auto({ TERM: 'tmux-256color', KITTY_WINDOW_ID: '3' })).toBeNull();
    expect(auto({ TERM: 'xterm-kitty', TMUX: '/tmp/tmux-0/default,1,0' })).toBeNull();
    expect(auto({ TERM: 'screen-256color', TERM_PROGRAM: 'iTerm.app' })).toBeNull();
    expect(imageProtocolFor({ TERM: 'xterm-kitty' }, 'auto', false)).toBeNull();
    expect(imageProtocolFor({ TERM: 'tmux-256color', TMUX: '1', TERM_PROGRAM: 'iTerm.app' }, 'native', true)).toBe('iterm2');
    expect(imageProtocolFor({ TERM: 'xterm' }, 'native', false)).toBe('kitty');
    expect(imageProtocolFor({ TERM: 'xterm-kitty' }, 'blocks', true)).toBeNull();
  });

  it('reads the setting --images leaves in GEOLAB_IMAGES', () => {
    expect(imagesSettingFromEnv({ GEOLAB_IMAGES: 'native' })).toBe('native');
    expect(imagesSettingFromEnv({ GEOLAB_IMAGES: 'blocks' })).toBe('blocks');
    expect(imagesSettingFromEnv({})).toBe('auto');
  });
});

describe('the escapes of each protocol', () => {
  it('kitty: a PNG transmitted and shown in chunks of 4096 base64 characters, quietly, the cursor kept', () => {
    const png = Buffer.alloc(3073, 7); // 4100 base64 characters: a full chunk and four more
    const data = png.toString('base64');
    expect(kittyImage(png, { width: 40, height: 20 }, 5)).toBe(
      `${ESC}_Ga=T,f=100,i=5,p=1,c=40,r=20,C=1,q=2,m=1;${data.slice(0, 4096)}${ESC}\\` + `${ESC}_Gm=0;${data.slice(4096)}${ESC}\\`,
    );
    expect(kittyImage(Buffer.from('png'), { width: 2, height: 1 }, 1)).toBe(`${ESC}_Ga=T,f=100,i=1,p=1,c=2,r=1,C=1,q=2,m=0;cG5n${ESC}\\`);
    expect(kittyPlacement(5, { width: 40, height: 20 })).toBe(`${ESC}_Ga=p,i=5,p=1,c=40,r=20,C=1,q=2${ESC}\\`);
    expect(kittyDelete(5)).toBe(`${ESC}_Ga=d,d=I,i=5,q=2${ESC}\\`);
  });

  it('iTerm2: an inline file stretched over the box', () => {
    expect(iterm2Image(Buffer.from('jpeg'), { width: 40, height: 20 })).toBe(
      `${ESC}]1337;File=inline=1;size=4;width=40;height=20;preserveAspectRatio=0:anBlZw==\u0007`,
    );
  });

  it('placed from the cursor Ink leaves below its frame, or on its last row when the frame fills the screen', () => {
    expect(atBox({ column: 3, row: 2, frameRows: 10 }, 40, 'IMG')).toBe(`${ESC}7${ESC}[8A${ESC}[4GIMG${ESC}8`);
    expect(atBox({ column: 0, row: 2, frameRows: 40 }, 40, 'IMG')).toBe(`${ESC}7${ESC}[37A${ESC}[1GIMG${ESC}8`);
  });
});

/** A terminal-sized stream that keeps every write, as Ink's stdout. */
function fakeTerminal() {
  const writes: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      done();
      void chunk;
    },
  }) as Writable & { columns: number; rows: number; isTTY: boolean };
  const write = stream.write.bind(stream);
  stream.write = ((chunk: string | Buffer, ...rest: never[]) => {
    writes.push(String(chunk));
    return write(chunk, ...rest);
  }) as typeof stream.write;
  Object.assign(stream, { columns: 80, rows: 40, isTTY: false });
  return { stream, writes };
}

function fakeStdin() {
  return Object.assign(new EventEmitter(), {
    isTTY: false,
    setRawMode: () => undefined,
    setEncoding: () => undefined,
    read: () => null,
    resume: () => undefined,
    pause: () => undefined,
    ref: () => undefined,
    unref: () => undefined,
  }) as unknown as NodeJS.ReadStream;
}

async function solid(r: number, g: number, b: number, format: 'png' | 'jpeg'): Promise<Buffer> {
  const image = sharp({ create: { width: 16, height: 16, channels: 3, background: { r, g, b } } });
  return format === 'png' ? image.png().toBuffer() : image.jpeg().toBuffer();
}

/** A header row, then the image two columns in, as a screen would place it. */
function Screen({ protocol, label, image }: { protocol: ImageProtocol; label: string; image: { key: string; bytes: Buffer } | null }) {
  return (
    <ThemeContext.Provider value={createTheme({ colour: true })}>
      <ImageProtocolContext.Provider value={protocol}>
        <Box flexDirection="column">
          <Text>{label}</Text>
          <Box paddingLeft={2}>{image ? <InlineImage imageKey={image.key} bytes={image.bytes} width={8} height={4} /> : <Text>the map</Text>}</Box>
          <Text>footer</Text>
        </Box>
      </ImageProtocolContext.Provider>
    </ThemeContext.Provider>
  );
}

async function until(ok: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await tick(10);
  }
}

let app: Instance | undefined;
afterEach(() => {
  app?.unmount();
  app = undefined;
});

describe('native images in a real Ink render', () => {
  it('kitty: the old image is deleted before the next is drawn, and when its box goes', async () => {
    const { stream, writes } = fakeTerminal();
    const a = { key: 'a', bytes: await solid(255, 0, 0, 'png') };
    const b = { key: 'b', bytes: await solid(0, 0, 255, 'jpeg') };
    app = render(<Screen protocol="kitty" label="turn 1" image={a} />, { stdout: stream as never, stdin: fakeStdin(), patchConsole: false, exitOnCtrlC: false });
    await until(() => writes.some((w) => w.includes('a=T,f=100,i=1,')), 'image a');
    const drawA = writes.find((w) => w.includes('a=T,f=100,i=1,'))!;
    // Frame: "turn 1", the box (rows 1-4) two columns in, "footer": 6 rows; the cursor stays below.
    expect(drawA.startsWith(`${ESC}7${ESC}[5A${ESC}[3G${ESC}_Ga=T,f=100,i=1,p=1,c=8,r=4,C=1,q=2,m=0;${a.bytes.toString('base64')}${ESC}\\`)).toBe(true);
    expect(drawA.endsWith(`${ESC}8`)).toBe(true);

    const before = writes.length;
    app.rerender(<Screen protocol="kitty" label="turn 2" image={b} />);
    await until(() => writes.slice(before).some((w) => w.includes('a=T,f=100,i=2,')), 'image b');
    const after = writes.slice(before);
    const deleteA = after.indexOf(kittyDelete(1));
    const drawB = after.findIndex((w) => w.includes('a=T,f=100,i=2,'));
    expect(deleteA).toBeGreaterThanOrEqual(0);
    expect(deleteA).toBeLessThan(drawB);
    // Image a is never put back once b is wanted.
    expect(after.some((w) => w.includes('a=p,i=1,'))).toBe(false);
    // b went to kitty as a PNG, though it came as a JPEG.
    const payload = Buffer.from(after[drawB]!.split(';').at(-1)!.split(ESC)[0]!, 'base64');
    expect(payload.readUInt32BE(0)).toBe(0x89504e47);

    const beforeMap = writes.length;
    app.rerender(<Screen protocol="kitty" label="turn 3" image={null} />);
    await until(() => writes.slice(beforeMap).some((w) => w.includes('the map')), 'the map');
    await tick(20);
    const mapWrites = writes.slice(beforeMap);
    expect(mapWrites).toContain(kittyDelete(2));
    expect(mapWrites.some((w) => w.includes(`${ESC}_Ga=T`) || w.includes(`${ESC}_Ga=p`))).toBe(false);
  });

  it('kitty: a frame that changes around the image puts the same image back without sending it again', async () => {
    const { stream, writes } = fakeTerminal();
    const a = { key: 'a', bytes: await solid(255, 0, 0, 'png') };
    app = render(<Screen protocol="kitty" label="turn 1" image={a} />, { stdout: stream as never, stdin: fakeStdin(), patchConsole: false, exitOnCtrlC: false });
    await until(() => writes.some((w) => w.includes('a=T,f=100,i=1,')), 'image a');
    const before = writes.length;
    app.rerender(<Screen protocol="kitty" label="turn 1 ▶" image={a} />);
    await until(() => writes.slice(before).some((w) => w.includes('a=p,i=1,')), 'the placement');
    const after = writes.slice(before);
    expect(after).toContain(`${ESC}7${ESC}[5A${ESC}[3G${kittyPlacement(1, { width: 8, height: 4 })}${ESC}8`);
    expect(after.some((w) => w.includes('a=T') || w.includes('a=d'))).toBe(false);
  });

  it('iTerm2: Ink\'s rewrite of the frame erases the old image, then only the new one is written', async () => {
    const { stream, writes } = fakeTerminal();
    const a = { key: 'a', bytes: await solid(255, 0, 0, 'jpeg') };
    const b = { key: 'b', bytes: await solid(0, 0, 255, 'jpeg') };
    app = render(<Screen protocol="iterm2" label="turn 1" image={a} />, { stdout: stream as never, stdin: fakeStdin(), patchConsole: false, exitOnCtrlC: false });
    await until(() => writes.some((w) => w.includes(iterm2Image(a.bytes, { width: 8, height: 4 }))), 'image a');
    expect(writes).toContain(`${ESC}7${ESC}[5A${ESC}[3G${iterm2Image(a.bytes, { width: 8, height: 4 })}${ESC}8`);

    const before = writes.length;
    app.rerender(<Screen protocol="iterm2" label="turn 2" image={b} />);
    const imageB = iterm2Image(b.bytes, { width: 8, height: 4 });
    const frameOf = (writes: string[]) => writes.findIndex((w) => w.includes('turn 2'));
    // Ink may write the frame after the image (its redraws are throttled): the image then follows it again.
    await until(() => {
      const after = writes.slice(before);
      return frameOf(after) >= 0 && after.slice(frameOf(after)).some((w) => w.includes(imageB));
    }, 'image b after the frame');
    const after = writes.slice(before);
    // The frame with "turn 2" erases every line of the old one (the image's rows among them) first.
    const erased = (after[frameOf(after)]!.match(new RegExp(`${ESC}\\[2K`, 'g')) ?? []).length;
    expect(erased).toBeGreaterThanOrEqual(6);
    expect(after.some((w) => w.includes(a.bytes.toString('base64')))).toBe(false);
  });

  it('an image kitty cannot be given says so in its box, and nothing is sent', async () => {
    const { stream, writes } = fakeTerminal();
    const broken = { key: 'broken', bytes: Buffer.from('not an image at all') };
    app = render(<Screen protocol="kitty" label="turn 1" image={broken} />, { stdout: stream as never, stdin: fakeStdin(), patchConsole: false, exitOnCtrlC: false });
    // The box is 8 columns: the message is cut to its first word.
    await until(() => writes.some((w) => w.includes('cannot')), 'the failure');
    expect(writes.some((w) => w.includes(`${ESC}_G`))).toBe(false);
  });
});
