/** The Eval board's CSV (RFC 4180) and the status line that says where it went. */
import { describe, expect, it } from 'vitest';
import { toCsv, writtenLine, type ExportTable } from '../../src/tui/eval/export.js';

describe('toCsv', () => {
  it('ends every record with CRLF and quotes only the fields that need it, doubling their quotes', () => {
    expect(toCsv([['arm', '95% CI'], ['alpha@v2', '[0.1000, 0.2000]'], ['say "hi"', 'two\nlines'], ['', '-']])).toBe(
      'arm,95% CI\r\nalpha@v2,"[0.1000, 0.2000]"\r\n"say ""hi""","two\nlines"\r\n,-\r\n',
    );
    expect(toCsv([])).toBe('');
  });
});

describe('writtenLine', () => {
  const table: ExportTable = { what: 'the arms', rows: [['arm'], ['a'], ['b']] };

  it('names the whole path when it fits, else with ~ for home, else its end', () => {
    expect(writtenLine(table, '/w/exports/eval-1.csv', 80, '/home/u')).toBe('wrote the arms (2 rows) as CSV to /w/exports/eval-1.csv');
    const file = '/home/u/.local/share/geolab/exports/eval-20261202-183001-123.csv';
    expect(writtenLine(table, file, 100, '/home/u')).toBe(`wrote the arms (2 rows) as CSV to ${file}`);
    expect(writtenLine(table, file, 95, '/home/u')).toBe('wrote the arms (2 rows) as CSV to ~/.local/share/geolab/exports/eval-20261202-183001-123.csv');
    expect(writtenLine(table, file, 78, '/home/u')).toBe('CSV of the arms: ~/.local/share/geolab/exports/eval-20261202-183001-123.csv');
    const cut = writtenLine(table, file, 50, '/home/u');
    expect(cut).toBe('CSV of the arms: …/eval-20261202-183001-123.csv');
    expect(cut.length).toBeLessThanOrEqual(50);
  });
});
