import { Box, Text } from 'ink';
import { Fragment, useMemo } from 'react';
import type { Outcome } from '../../core/episode.js';
import type { LatLon } from '../../core/geodesy.js';
import { describePlace } from '../../env/feedback.js';
import { locate } from '../../geo/index.js';
import { useTheme } from '../contexts/ThemeContext.js';
import type { Colour } from '../theme.js';
import { formatKm, formatLatLon } from '../format.js';
import { drawRegionalMap } from '../map/regional-map.js';
import { fitMap, GUESS_MARK, TRUTH_MARK } from '../map/world-map.js';
import { MapLines, WorldMap } from './WorldMap.js';
import { Panel } from './Panel.js';

/** Rows the reveal map adds to the map itself: the panel's borders and the legend. */
export const REVEAL_MAP_CHROME_ROWS = 3;
/** Rows of the places under the outcome: the truth's and the guess's. */
export const REVEAL_PLACES_ROWS = 2;

/** A record's point, or null for none or one no map holds (an old record's stray guess). */
function point(p: readonly [number, number] | null | undefined): LatLon | null {
  return p && Math.abs(p[0]) <= 90 && Number.isFinite(p[1]) ? { lat: p[0], lon: p[1] } : null;
}

export interface RevealMapProps {
  outcome: Outcome;
  pins: readonly LatLon[];
  /** The space for the map, borders and legend included. */
  columns: number;
  rows: number;
  /** Fit a regional map to the pins as well as guess and truth. */
  fitPins?: boolean;
  /** What the pins are, in the legend (default: pins). */
  pinsLabel?: string;
}

/**
 * The reveal: a map fitted to guess and truth with the great circle between them, and its legend.
 * Guesses too far off for a regional map (half the globe) get the world map; so does an episode
 * without a usable guess.
 */
export function RevealMap({ outcome, pins, columns, rows, fitPins = false, pinsLabel }: RevealMapProps) {
  const theme = useTheme();
  const guess = point(outcome.guess);
  const truth = point(outcome.truth);
  const mapColumns = columns - 2;
  const mapRows = rows - REVEAL_MAP_CHROME_ROWS;
  const input = JSON.stringify({ columns: mapColumns, rows: mapRows, guess, truth, pins, fitPins });
  const regional = useMemo(() => {
    const parsed = JSON.parse(input) as { columns: number; rows: number; guess: LatLon | null; truth: LatLon | null; pins: LatLon[]; fitPins: boolean };
    return parsed.guess && parsed.truth ? drawRegionalMap({ ...parsed, guess: parsed.guess, truth: parsed.truth }) : null;
  }, [input]);
  const world = fitMap(mapColumns, mapRows);
  const km = outcome.distance_km ?? null;
  const mark = (colour: Colour, glyph: string, label: string) => (
    <>
      <Text color={colour} bold>
        {glyph}
      </Text>
      {label}
    </>
  );
  const legend = [
    guess ? mark(theme.map.guess, GUESS_MARK, ' guess') : null,
    truth ? mark(theme.map.truth, TRUTH_MARK, ' truth') : null,
    guess && truth && km !== null ? mark(theme.map.path, '⠒⠒', ` great circle ${formatKm(km)}`) : null,
    pins.length ? mark(theme.map.pin, pins.length === 1 ? '1' : `1…${pins.length % 10}`, ` ${pinsLabel ?? (pins.length === 1 ? 'pin' : 'pins')}`) : null,
  ].filter(Boolean);
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
        {legend.map((item, i) => (
          <Fragment key={i}>
            {i > 0 ? ' · ' : ''}
            {item}
          </Fragment>
        ))}
        <Text color={theme.muted}>{regional ? ` · one cell ≈ ${formatKm(regional.region.kmPerCell)} across` : ' · world map'}</Text>
      </Text>
    </Box>
  );
}

function placeOf(p: readonly [number, number] | null | undefined): string | null {
  const at = point(p);
  return at ? describePlace(locate(at.lat, at.lon)) : null;
}

/** Where the truth and the guess are: country and nearest major city, not bare coordinates. */
export function RevealPlaces({ outcome }: { outcome: Outcome }) {
  const theme = useTheme();
  const [truth, guess] = [outcome.truth, outcome.guess];
  const places = useMemo(() => ({ truth: placeOf(truth), guess: placeOf(guess) }), [truth, guess]);
  return (
    <Box flexDirection="column" flexShrink={0}>
      {places.truth && truth ? <PlaceLine mark={TRUTH_MARK} label="truth" colour={theme.map.truth} place={places.truth} at={truth} /> : null}
      {places.guess && guess ? <PlaceLine mark={GUESS_MARK} label="guess" colour={theme.map.guess} place={places.guess} at={guess} /> : null}
    </Box>
  );
}

function PlaceLine({ mark, label, colour, place, at }: { mark: string; label: string; colour: Colour; place: string; at: readonly [number, number] }) {
  const theme = useTheme();
  return (
    <Text wrap="truncate-end">
      <Text color={colour} bold>
        {mark} {label}
      </Text>
      {`  ${place}`}
      <Text color={theme.muted}>{`  (${formatLatLon(...at)})`}</Text>
    </Text>
  );
}
