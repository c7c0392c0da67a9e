/**
 * Braille text from dot grids: each character cell holds 2 x 4 dots, which on a terminal cell about
 * twice as tall as wide makes the dots square. Shared by the world map and the regional map.
 */

export type MapCellKind = 'sea' | 'land' | 'path' | 'guess' | 'truth' | 'pin';

/** A run of cells of one kind: what a component colours. */
export interface MapSegment {
  kind: MapCellKind;
  text: string;
}

/** A symbol that replaces a whole cell (a pin, the guess, the truth). */
export interface CellMark {
  kind: MapCellKind;
  text: string;
}

/** Bit of each dot in a braille cell (Unicode's dot numbering), indexed [row][column]. */
const BRAILLE_BITS = [
  [0x01, 0x08],
  [0x02, 0x10],
  [0x04, 0x20],
  [0x40, 0x80],
] as const;

/**
 * `columns` x `rows` cells from a land and a path grid of `columns * 2` x `rows * 4` dots; `marks`
 * (keyed by `row * columns + column`) replace their cells.
 */
export function paintBraille(
  columns: number,
  rows: number,
  land: Uint8Array,
  path: Uint8Array,
  marks: ReadonlyMap<number, CellMark>,
): MapSegment[][] {
  const width = columns * 2;
  const lines: MapSegment[][] = [];
  for (let row = 0; row < rows; row++) {
    const line: MapSegment[] = [];
    for (let col = 0; col < columns; col++) {
      const cell = marks.get(row * columns + col) ?? brailleCell(land, path, width, col, row);
      const last = line[line.length - 1];
      if (last?.kind === cell.kind) last.text += cell.text;
      else line.push({ ...cell });
    }
    lines.push(line);
  }
  return lines;
}

function brailleCell(land: Uint8Array, path: Uint8Array, width: number, col: number, row: number): MapSegment {
  let landBits = 0;
  let pathBits = 0;
  for (let dy = 0; dy < 4; dy++) {
    for (let dx = 0; dx < 2; dx++) {
      const i = (row * 4 + dy) * width + col * 2 + dx;
      const bit = BRAILLE_BITS[dy]![dx]!;
      if (land[i]) landBits |= bit;
      if (path[i]) pathBits |= bit;
    }
  }
  // A path cell drops its land dots so the line stays visible without colour (NO_COLOR).
  if (pathBits) return { kind: 'path', text: String.fromCharCode(0x2800 + pathBits) };
  // An empty braille cell (U+2800) rather than a space keeps the map's width when copied as text.
  return { kind: landBits ? 'land' : 'sea', text: String.fromCharCode(0x2800 + landBits) };
}
