/** Plain output helpers shared by the commands: JSON on stdout, messages on stderr. */

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value) + '\n');
}

export function printLine(text = ''): void {
  process.stdout.write(text + '\n');
}

export function warn(text: string): void {
  process.stderr.write(text + '\n');
}

/** Right-pads cells into aligned columns for plain-text tables. */
export function table(rows: (string | number)[][]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, String(cell).length)));
  return rows
    .map((row) => row.map((cell, i) => (i === row.length - 1 ? String(cell) : String(cell).padEnd(widths[i] ?? 0))).join('  '))
    .join('\n');
}
