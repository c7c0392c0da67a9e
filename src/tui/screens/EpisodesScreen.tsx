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
  const { total, recorded, cursor, rows, query, prompt } = episodes;
  const filtered = isFiltered(query.filter);

  // While the filter prompt is open every key is text for it, `?` included.
  useScreenKeys(prompt ? null : 'episodes.help', (input, key) => onKey(episodes, list, actions, input, key));

  const position = total ? `${cursor.selected + 1}/${total}` : '';
  const count = filtered ? `${total} of ${recorded}` : `${recorded} recorded`;
  const order = `by ${query.sort} ${query.descending ? '↓' : '↑'}`;
  const title = ['EPISODES', count, describeFilter(query.filter), order].filter(Boolean).join(' · ');
  const hints: HintItem[] = [
    { commands: ['episodes.up', 'episodes.down'], label: 'choose' },
    { commands: ['episodes.filter'], label: 'filter' },
    { commands: ['episodes.sort', 'episodes.reverse'], label: 'sort' },
    ...(filtered ? [{ commands: ['episodes.clearFilter'], label: 'clear' } as const] : []),
    { commands: ['episodes.open'], label: 'open' },
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
