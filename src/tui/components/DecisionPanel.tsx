/**
 * The Player's retry and fork panel (state/decision.ts): the endpoint form, then for a retry the
 * recorded reply beside each sample as it arrives (action, arguments, the first lines of the
 * reasoning, tokens), the summary, the request-hash line, and the samples' guesses as pins on the
 * reveal map.
 */
import { Box, Text } from 'ink';
import type { Outcome } from '../../core/episode.js';
import { useTheme } from '../contexts/ThemeContext.js';
import { formatKm, wrapLines } from '../format.js';
import { keyLabel } from '../keys.js';
import {
  checkText,
  decisionFields,
  sampleGuesses,
  startPosition,
  summaryText,
  type DecisionField,
  type DecisionState,
  type SampleView,
} from '../state/decision.js';
import { RevealMap } from './Reveal.js';
import { Spinner } from './Spinner.js';

export type DecisionPanelView = DecisionState & { keySet: boolean | null };

export interface DecisionPanelProps {
  panel: DecisionPanelView;
  /** The episode's outcome: its guess and truth go on the map with the samples' guesses. */
  outcome: Outcome | null;
  width: number;
  height: number;
}

/** What an empty field means, shown in its place. */
const EMPTY: Partial<Record<DecisionField, string>> = {
  model: 'the name the endpoint lists at /v1/models',
  apiKeyEnv: 'none: no key is sent',
  temperature: 'blank: as recorded',
};

const LABEL_WIDTH = Math.max(...decisionFields('retry').map((f) => f.label.length)) + 2;
/** Lines of a sample's reasoning shown: enough to see where it went, the Player has the rest. */
export const SAMPLE_REASONING_LINES = 3;
/** Below this a column cannot hold a call: the samples go one a row instead. */
const MIN_COLUMN_WIDTH = 22;
/** Rows of a sample's column: borders, title, call (2), reasoning, tokens, guess. */
const COLUMN_ROWS = 2 + 1 + 2 + SAMPLE_REASONING_LINES + 1 + 1;
/** The smallest map worth drawing, legend and borders included. */
const MIN_MAP_ROWS = 8;

export function DecisionPanel({ panel, outcome, width, height }: DecisionPanelProps) {
  const theme = useTheme();
  const fields = decisionFields(panel.kind);
  const retry = panel.kind === 'retry';
  const title = retry
    ? `RETRY turn ${panel.turn} · its request sent again, each reply beside the recorded one`
    : `FORK at turn ${panel.turn} · a new episode replays turns before ${panel.turn}, then plays on in Live`;
  const guesses = sampleGuesses(panel);
  // Samples that came back before a send failed stay in view beside its error.
  const showsSamples = retry && panel.samples.length > 0;
  const columns = showsSamples && Math.floor(width / (panel.samples.length + 1)) >= MIN_COLUMN_WIDTH;
  const used = 1 + fields.length + 2 + 2 + 1 + (showsSamples ? (columns ? COLUMN_ROWS : panel.samples.length + 1) + 1 : 0);
  const mapRows = height - used;
  return (
    <Box flexDirection="column" flexGrow={1} width={width}>
      <Text bold wrap="truncate-end">
        {title}
      </Text>
      {panel.phase === 'loading' ? (
        <Spinner label={retry ? 'rebuilding the request from the record' : 'reading the episode'} />
      ) : panel.phase === 'unavailable' ? null : (
        <>
          {fields.map((field, i) => (
            <FieldRow key={field.name} panel={panel} name={field.name} label={field.label} focused={i === panel.focus} />
          ))}
          <StartRow panel={panel} />
        </>
      )}
      {panel.error ? (
        <Text color={theme.status.error} wrap="truncate-end">
          {panel.error.message}
        </Text>
      ) : null}
      {panel.phase === 'sending' ? (
        <Spinner label={retry ? `${panel.samples.filter(Boolean).length} of ${panel.samples.length} samples back` : 'checking the endpoint (for a model) and opening Live on the fork'} />
      ) : null}
      {panel.check ? <CheckLine panel={panel} /> : null}
      {showsSamples ? (
        columns ? (
          <Box flexShrink={0}>
            <SampleColumn title="recorded" sample={panel.recorded} width={Math.floor(width / (panel.samples.length + 1))} />
            {panel.samples.map((sample, i) => (
              <SampleColumn key={i} title={`#${i + 1}`} sample={sample} width={Math.floor(width / (panel.samples.length + 1))} />
            ))}
          </Box>
        ) : (
          <Box flexDirection="column" flexShrink={0}>
            <SampleRow title="recorded" sample={panel.recorded} />
            {panel.samples.map((sample, i) => (
              <SampleRow key={i} title={`#${i + 1}`} sample={sample} />
            ))}
          </Box>
        )
      ) : null}
      {panel.summary ? (
        <Text bold wrap="truncate-end">
          {summaryText(panel.summary)}
        </Text>
      ) : null}
      {guesses.length && outcome && mapRows >= MIN_MAP_ROWS ? (
        <RevealMap outcome={outcome} pins={guesses} fitPins pinsLabel={guesses.length === 1 ? "sample's guess" : "samples' guesses"} columns={width} rows={mapRows} />
      ) : null}
    </Box>
  );
}

function FieldRow({ panel, name, label, focused }: { panel: DecisionPanelView; name: DecisionField; label: string; focused: boolean }) {
  const theme = useTheme();
  const value = panel.values[name];
  const editing = focused && (panel.phase === 'editing' || panel.phase === 'done');
  return (
    <Text wrap="truncate-end">
      <Text color={focused ? theme.accent : undefined} bold={focused}>
        {focused ? '› ' : '  '}
        {label.padEnd(LABEL_WIDTH)}
      </Text>
      {value}
      {editing ? <Text inverse> </Text> : null}
      {value ? null : <Text color={theme.muted}>{`${editing ? ' ' : ''}${EMPTY[name] ?? ''}`}</Text>}
      {name === 'apiKeyEnv' && panel.keySet !== null ? (
        panel.keySet ? (
          <Text color={theme.status.ok}>{' (set)'}</Text>
        ) : (
          <Text color={theme.status.warn}>{' (not set: no key is sent)'}</Text>
        )
      ) : null}
      {panel.error?.field === name ? <Text color={theme.status.error}>{'  ◀'}</Text> : null}
    </Text>
  );
}

function StartRow({ panel }: { panel: DecisionPanelView }) {
  const theme = useTheme();
  const focused = panel.focus === startPosition(panel);
  const label = panel.kind === 'retry' ? (panel.phase === 'done' ? '[ Send again ]' : '[ Send ]') : '[ Play on with the model ]';
  return (
    <Box marginTop={1}>
      <Text color={focused ? theme.accent : undefined} bold={focused} inverse={focused}>
        {focused ? `› ${label}` : `  ${label}`}
      </Text>
      {panel.kind === 'fork' ? <Text color={theme.muted}>{`  ${keyLabel('decision.person')}: play on yourself`}</Text> : null}
    </Box>
  );
}

function CheckLine({ panel }: { panel: DecisionPanelView }) {
  const theme = useTheme();
  const { tone, text } = checkText(panel.check!);
  const colour = tone === 'ok' ? theme.status.ok : tone === 'warn' ? theme.status.warn : theme.muted;
  return (
    <Text color={colour} wrap="truncate-end">
      {text}
    </Text>
  );
}

function callText(sample: SampleView): string {
  return sample.action ? `${sample.action}(${sample.arguments})` : '(no action)';
}

function tokensText(sample: SampleView): string {
  return [sample.tokens !== null ? `${sample.tokens} tok` : null, sample.latencyS !== null ? `${sample.latencyS.toFixed(1)} s` : null].filter(Boolean).join(' · ');
}

function SampleColumn({ title, sample, width }: { title: string; sample: SampleView | null; width: number }) {
  const theme = useTheme();
  const inner = width - 4;
  const lines: { text: string; colour?: string }[] = [];
  if (!sample) lines.push({ text: '…', colour: theme.muted });
  else if (sample.error) wrapLines(sample.error, inner).forEach((text) => lines.push({ text, colour: theme.status.error }));
  else {
    wrapLines(callText(sample), inner).slice(0, 2).forEach((text) => lines.push({ text }));
    if (sample.reasoning) wrapLines(sample.reasoning, inner).slice(0, SAMPLE_REASONING_LINES).forEach((text) => lines.push({ text, colour: theme.muted }));
    lines.push({ text: tokensText(sample), colour: theme.muted });
    if (sample.distanceKm !== null) lines.push({ text: `${formatKm(sample.distanceKm)} to the truth` });
  }
  return (
    <Box borderStyle="round" borderColor={theme.muted} width={width} height={COLUMN_ROWS} flexDirection="column" paddingX={1} flexShrink={0} overflow="hidden">
      <Text bold color={title === 'recorded' ? theme.accent : undefined} wrap="truncate-end">
        {title}
      </Text>
      {lines.slice(0, COLUMN_ROWS - 3).map((line, i) => (
        <Text key={i} color={line.colour} wrap="truncate-end">
          {line.text}
        </Text>
      ))}
    </Box>
  );
}

function SampleRow({ title, sample }: { title: string; sample: SampleView | null }) {
  const theme = useTheme();
  if (!sample) return <Text color={theme.muted}>{`${title.padEnd(9)}…`}</Text>;
  const rest = sample.error
    ? sample.error
    : [callText(sample), tokensText(sample), sample.distanceKm !== null ? `${formatKm(sample.distanceKm)} to the truth` : null, sample.reasoning?.replace(/\s+/g, ' ')]
        .filter(Boolean)
        .join(' · ');
  return (
    <Text wrap="truncate-end" color={sample.error ? theme.status.error : undefined}>
      <Text bold>{title.padEnd(9)}</Text>
      {rest}
    </Text>
  );
}
