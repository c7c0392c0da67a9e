import { Box, Text, type Key } from 'ink';
import { useState } from 'react';
import { EpisodeTable } from '../components/EpisodeTable.js';
import { Footer } from '../components/Footer.js';
import { Header } from '../components/Header.js';
import { HelpOverlay } from '../components/HelpOverlay.js';
import { TextPrompt } from '../components/TextPrompt.js';
import { useNavigation, useNavigationActions, useScreenActive, type NavigationActions } from '../contexts/NavigationContext.js';
import { useTheme } from '../contexts/ThemeContext.js';
import { useWorkspaceState } from '../contexts/WorkspaceContext.js';
import { useScreenKeys } from '../hooks/useScreenKeys.js';
import { useTerminalSize } from '../hooks/useTerminalSize.js';
import { useEpisodeList, type EpisodeListActions, type EpisodeListState } from '../hooks/useWorkspace.js';
import { keyLabel, matches, type HintItem } from '../keys.js';
import type { EpisodeRow } from '../services.js';
import { describeFilter, FILTER_SYNTAX, isFiltered } from '../state/episode-filter.js';

/**
 * Rows the list cannot use: header, blank line, column titles, notice and key hints (or in their
 * place the filter prompt and its complaint), and the spare last row.
 */
const EPISODES_CHROME_ROWS = 6;

export function EpisodesScreen() {
  const theme = useTheme();
  const { columns, rows: screenRows } = useTerminalSize();
  const { help, notice } = useNavigation();
  const actions = useNavigationActions();
  const workspace = useWorkspaceState();
  const { state: episodes, actions: list } = useEpisodeList(workspace, useScreenActive(), screenRows - EPISODES_CHROME_ROWS);
  // Ages as of opening the list.
  const [now] = useState(() => Date.now());
  // The episode marked for a comparison with the next one marked.
  const [marked, setMarked] = useState<EpisodeRow | null>(null);
  const { total, recorded, cursor, rows, query, prompt } = episodes;
  const filtered = isFiltered(query.filter);

  // While the filter prompt is open every key is text for it, `?` included.
  useScreenKeys(prompt ? null : 'episodes.help', (input, key) => {
    if (!prompt && matches('episodes.mark', input, key)) return mark(episodes, marked, setMarked, actions);
    onKey(episodes, list, actions, input, key);
  });

  const position = total ? `${cursor.selected + 1}/${total}` : '';
  const count = filtered ? `${total} of ${recorded}` : `${recorded} recorded`;
  const order = `by ${query.sort} ${query.descending ? '↓' : '↑'}`;
  const title = ['EPISODES', count, describeFilter(query.filter), order, marked ? `marked ${marked.episodeId.slice(0, 8)}` : ''].filter(Boolean).join(' · ');
  const hints: HintItem[] = [
    { commands: ['episodes.up', 'episodes.down'], label: 'choose' },
    { commands: ['episodes.filter'], label: 'filter' },
    { commands: ['episodes.sort', 'episodes.reverse'], label: 'sort' },
    ...(filtered ? [{ commands: ['episodes.clearFilter'], label: 'clear' } as const] : []),
    { commands: ['episodes.open'], label: 'open' },
    { commands: ['episodes.mark'], label: marked ? 'compare' : 'mark' },
    'episodes.back',
    'episodes.help',
  ];
  return (
    <Box flexDirection="column" paddingX={1} height="100%">
      <Header title={<Text bold>{title}</Text>} right={position} />
      {help ? (
        <HelpOverlay title="Episodes" groups={['episodes']} />
      ) : (
        <>
          <Box marginTop={1} flexGrow={1} flexDirection="column">
            {workspace?.status === 'loading' ? (
              <Text color={theme.muted}>opening the workspace…</Text>
            ) : workspace?.status === 'failed' ? (
              <Text color={theme.status.error}>cannot read the workspace: {workspace.message}</Text>
            ) : episodes.error ? (
              <Text color={theme.status.error}>cannot read the episodes: {episodes.error}</Text>
            ) : recorded === 0 ? (
              <Text color={theme.muted}>No episodes recorded yet: Play on Home records one.</Text>
            ) : total === 0 ? (
              <Text color={theme.muted}>
                No episode matches {describeFilter(query.filter)}: {keyLabel('episodes.clearFilter')} clears the filter,{' '}
                {keyLabel('episodes.filter')} changes it.
              </Text>
            ) : (
              <EpisodeTable
                rows={rows}
                top={cursor.top}
                selected={cursor.selected}
                width={columns - 2}
                sort={query.sort}
                now={now}
              />
            )}
          </Box>
          {prompt ? (
            <TextPrompt label="filter:" text={prompt.text} submit="filter" error={prompt.error} placeholder={FILTER_SYNTAX} />
          ) : (
            <Footer notice={notice} hints={hints} />
          )}
        </>
      )}
    </Box>
  );
}

/** Marks the selected episode; with one marked, compares the two when they played the same task. */
function mark(episodes: EpisodeListState, marked: EpisodeRow | null, setMarked: (row: EpisodeRow | null) => void, actions: NavigationActions): void {
  const row = episodes.rows[episodes.cursor.selected - episodes.cursor.top];
  if (!row) return;
  if (!marked || marked.episodeId === row.episodeId) {
    setMarked(marked ? null : row);
    actions.notify(marked ? null : `marked ${row.episodeId.slice(0, 8)}: mark another episode of ${row.split}/${row.index} to compare them`);
    return;
  }
  if (marked.split !== row.split || marked.index !== row.index) {
    actions.notify(`${row.episodeId.slice(0, 8)} plays ${row.split}/${row.index}, the marked ${marked.episodeId.slice(0, 8)} ${marked.split}/${marked.index}: compare episodes of one task`);
    return;
  }
  setMarked(null);
  actions.open({ screen: 'compare', a: { episodeId: marked.episodeId }, b: { episodeId: row.episodeId } });
}

function onKey(episodes: EpisodeListState, list: EpisodeListActions, actions: NavigationActions, input: string, key: Key): void {
  if (episodes.prompt) {
    if (matches('prompt.submit', input, key)) list.applyFilter();
    else if (matches('prompt.cancel', input, key)) list.cancelFilter();
    else if (matches('prompt.erase', input, key)) list.eraseFilter();
    // Printable text only: arrows and other named keys arrive with an empty input.
    else if (input && !key.ctrl && !key.meta) list.typeFilter(input);
    return;
  }
  const { rows, cursor } = episodes;
  const page = Math.max(1, rows.length);
  if (matches('episodes.up', input, key)) list.move(-1);
  else if (matches('episodes.down', input, key)) list.move(1);
  else if (matches('episodes.pageUp', input, key)) list.move(-page);
  else if (matches('episodes.pageDown', input, key)) list.move(page);
  else if (matches('episodes.filter', input, key)) list.openFilter();
  else if (matches('episodes.clearFilter', input, key)) list.clearFilter();
  else if (matches('episodes.sort', input, key)) list.cycleSort();
  else if (matches('episodes.reverse', input, key)) list.reverseSort();
  else if (matches('episodes.back', input, key)) actions.back();
  else if (matches('episodes.open', input, key)) {
    const row = rows[cursor.selected - cursor.top];
    if (row) actions.open({ screen: 'player', episodeId: row.episodeId });
  }
}
