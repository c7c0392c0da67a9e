import { Box, Text } from 'ink';
import { useMemo } from 'react';
import type { LatLon } from '../../core/geodesy.js';
import { useTheme } from '../contexts/ThemeContext.js';
import type { MapCellKind, MapSegment } from '../map/braille.js';
import { drawWorldMap, type LabelledGuess } from '../map/world-map.js';
import type { Theme } from '../theme.js';

export interface WorldMapProps {
  columns: number;
  rows: number;
  guess?: LatLon | null;
  truth?: LatLon | null;
  pins?: readonly LatLon[];
  guesses?: readonly LabelledGuess[];
}

/** The braille world map with the guess ✕, the truth ● and the great circle between them. */
export function WorldMap({ columns, rows, guess, truth, pins, guesses }: WorldMapProps) {
  // Keyed by value: callers build the points afresh on every render.
  const input = JSON.stringify({ columns, rows, guess, truth, pins, guesses });
  const lines = useMemo(() => drawWorldMap(JSON.parse(input)), [input]);
  return <MapLines lines={lines} columns={columns} />;
}

/** Braille map lines in the theme's map colours, marks in bold. */
export function MapLines({ lines, columns }: { lines: readonly MapSegment[][]; columns: number }) {
  const theme = useTheme();
  return (
    <Box flexDirection="column" width={columns}>
      {lines.map((segments, row) => (
        <Text key={row}>
          {segments.map((segment, i) => (
            <Text key={i} color={mapColour(theme, segment.kind)} bold={segment.kind === 'guess' || segment.kind === 'truth'}>
              {segment.text}
            </Text>
          ))}
        </Text>
      ))}
    </Box>
  );
}

export function mapColour(theme: Theme, kind: MapCellKind) {
  return kind === 'sea' ? undefined : theme.map[kind];
}
