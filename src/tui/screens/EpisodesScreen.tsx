import { Box, Text } from 'ink';
import { EpisodeTable } from '../components/EpisodeTable.js';
import { Footer } from '../components/Footer.js';
import { Header } from '../components/Header.js';
import { HelpOverlay } from '../components/HelpOverlay.js';
import { useTheme } from '../contexts/ThemeContext.js';
import { useUIActions, useUIState } from '../contexts/UIContext.js';
import { useScreenKeys } from '../hooks/useScreenKeys.js';
import { matches } from '../keys.js';

/** Rows the list cannot use: header, blank line, column titles, notice and key hints, and the spare last row. */
export const EPISODES_CHROME_ROWS = 6;

export function EpisodesScreen() {
  const theme = useTheme();
  const { episodes, help, notice, workspace } = useUIState();
  const actions = useUIActions();
  const { total, cursor, rows } = episodes;
  const page = Math.max(1, rows.length);

  useScreenKeys('episodes.help', (input, key) => {
    if (matches('episodes.up', input, key)) actions.moveEpisodes(-1);
    else if (matches('episodes.down', input, key)) actions.moveEpisodes(1);
    else if (matches('episodes.pageUp', input, key)) actions.moveEpisodes(-page);
    else if (matches('episodes.pageDown', input, key)) actions.moveEpisodes(page);
    else if (matches('episodes.back', input, key)) actions.back();
    else if (matches('episodes.open', input, key)) {
      const row = rows[cursor.selected - cursor.top];
      if (row) actions.open({ screen: 'player', episodeId: row.episodeId });
    }
  });

  const position = total ? `${cursor.selected + 1}/${total}` : '';
  return (
    <Box flexDirection="column" paddingX={1} height="100%">
      <Header title={<Text bold>EPISODES · {total} recorded</Text>} right={position} />
      {help ? (
        <HelpOverlay title="Episodes" groups={['episodes']} />
      ) : (
        <>
          <Box marginTop={1} flexGrow={1} flexDirection="column">
            {workspace?.status === 'loading' ? (
              <Text color={theme.muted}>opening the workspace…</Text>
            ) : workspace?.status === 'failed' ? (
              <Text color={theme.status.error}>cannot read the workspace: {workspace.message}</Text>
            ) : total === 0 ? (
              <Text color={theme.muted}>No episodes recorded yet: Play on Home records one.</Text>
            ) : (
              <EpisodeTable rows={rows} top={cursor.top} selected={cursor.selected} />
            )}
          </Box>
          <Footer
            notice={notice}
            hints={[{ commands: ['episodes.up', 'episodes.down'], label: 'choose' }, 'episodes.open', 'episodes.back', 'episodes.help']}
          />
        </>
      )}
    </Box>
  );
}
