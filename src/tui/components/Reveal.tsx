import { Box, Text } from 'ink';
import { useMemo } from 'react';
import type { Outcome } from '../../core/episode.js';
import type { LatLon } from '../../core/geodesy.js';
import { describePlace } from '../../env/feedback.js';
import { locate } from '../../geo/index.js';
import { useTheme } from '../contexts/ThemeContext.js';
import { formatKm, formatLatLon } from '../format.js';
import { drawRegionalMap } from '../map/regional-map.js';
import { fitMap, GUESS_MARK, TRUTH_MARK } from '../map/world-map.js';
import { MapLines, WorldMap } from './WorldMap.js';
import { Panel } from './Panel.js';

/** Rows the reveal map adds to the map itself: the panel's borders and the legend. */
export const REVEAL_MAP_CHROME_ROWS = 3;
/** Rows of the places under the outcome: the truth's and the guess's. */
export const REVEAL_PLACES_ROWS = 2;

const point = (p: readonly [number, number] | null | undefined): LatLon | null => (p ? { lat: p[0], lon: p[1] } : null);

export interface RevealMapProps {
  outcome: Outcome;
  pins: readonly LatLon[];
  /** The space for the map, borders and legend included. */
  columns: number;
  rows: number;
}

/**
 * The reveal: a map fitted to guess and truth with the great circle between them, and its legend.
 * Guesses too far off for a regional map (half the globe) get the world map; so does an episode
 * without a usable guess.
 */
export function RevealMap({ outcome, pins, columns, rows }: RevealMapProps) {
  const theme = useTheme();
  const guess = point(outcome.guess);
  const truth = point(outcome.truth);
  const mapColumns = columns - 2;
  const mapRows = rows - REVEAL_MAP_CHROME_ROWS;
  const input = JSON.stringify({ columns: mapColumns, rows: mapRows, guess, truth, pins });
  const regional = useMemo(() => {
    const parsed = JSON.parse(input) as { columns: number; rows: number; guess: LatLon | null; truth: LatLon | null; pins: LatLon[] };
    return parsed.guess && parsed.truth ? drawRegionalMap({ ...parsed, guess: parsed.guess, truth: parsed.truth }) : null;
  }, [input]);
  const world = fitMap(mapColumns, mapRows);
  const km = outcome.distance_km ?? null;
  return (
    <Box flexDirection="column" flexShrink={0}>
      {regional ? (
        <Panel width={mapColumns} height={mapRows}>
          <MapLines lines={regional.lines} columns={mapColumns} />
        </Panel>
      ) : (
        <Panel width={world.columns} height={world.rows}>
          <WorldMap columns={world.columns} rows={world.rows} pins={pins} guess={guess} truth={truth} />
        </Panel>
      )}
      <Text wrap="truncate-end">
        {guess ? (
          <>
            <Text color={theme.map.guess} bold>
              {GUESS_MARK}
            </Text>
            {' guess · '}
          </>
        ) : null}
        <Text color={theme.map.truth} bold>
          {TRUTH_MARK}
        </Text>
        {' truth'}
        {guess && km !== null ? (
          <>
            {' · '}
            <Text color={theme.map.path}>⠒⠒</Text>
            {` great circle ${formatKm(km)}`}
          </>
        ) : null}
        {pins.length ? (
          <>
            {' · '}
            <Text color={theme.map.pin}>1</Text>
            {' pins'}
          </>
        ) : null}
        <Text color={theme.muted}>{regional ? ` · one cell ≈ ${formatKm(regional.region.kmPerCell)} across` : ' · world map'}</Text>
      </Text>
    </Box>
  );
}

/** Where the truth and the guess are: country and nearest major city, not bare coordinates. */
export function RevealPlaces({ outcome }: { outcome: Outcome }) {
  const theme = useTheme();
  const [truth, guess] = [outcome.truth, outcome.guess];
  const places = useMemo(
    () => ({ truth: truth ? describePlace(locate(truth[0], truth[1])) : null, guess: guess ? describePlace(locate(guess[0], guess[1])) : null }),
    [truth, guess],
  );
  return (
    <Box flexDirection="column" flexShrink={0}>
      {places.truth && truth ? (
        <Text wrap="truncate-end">
          <Text color={theme.map.truth} bold>
            {TRUTH_MARK} truth
          </Text>
          {`  ${places.truth}`}
          <Text color={theme.muted}>{`  (${formatLatLon(...truth)})`}</Text>
        </Text>
      ) : null}
      {places.guess && guess ? (
        <Text wrap="truncate-end">
          <Text color={theme.map.guess} bold>
            {GUESS_MARK} guess
          </Text>
          {`  ${places.guess}`}
          <Text color={theme.muted}>{`  (${formatLatLon(...guess)})`}</Text>
        </Text>
      ) : null}
    </Box>
  );
}
