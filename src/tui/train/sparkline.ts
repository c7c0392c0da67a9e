/** A series as one line of block characters, scaled between its own low and high. */
const LEVELS = '▁▂▃▄▅▆▇█';

/** The newest `width` values (fewer when there are fewer); non-finite values are gaps. */
export function sparkline(values: readonly number[], width: number): string {
  const shown = values.slice(-Math.max(0, width));
  const finite = shown.filter(Number.isFinite);
  if (finite.length === 0) return '';
  const low = Math.min(...finite);
  const span = Math.max(...finite) - low;
  return shown
    .map((v) => {
      if (!Number.isFinite(v)) return ' ';
      // A flat series sits in the middle rather than on the floor.
      const level = span === 0 ? (LEVELS.length >> 1) - 1 : Math.round(((v - low) / span) * (LEVELS.length - 1));
      return LEVELS[level];
    })
    .join('');
}
