import { Box, Text } from 'ink';
import { useTheme } from '../contexts/ThemeContext.js';
import { keyLabel } from '../keys.js';
import type { CoordinatePrompt as Prompt } from '../state/live.js';

/** The inline "lat, lon" prompt for a pin or a guess, with the parser's note when the text held none. */
export function CoordinatePrompt({ prompt }: { prompt: Prompt }) {
  const theme = useTheme();
  return (
    <Box flexDirection="column" flexShrink={0}>
      <Text>
        <Text bold color={theme.accent}>
          {prompt.purpose === 'pin' ? 'pin at' : 'guess'} (lat, lon):{' '}
        </Text>
        {prompt.text}
        <Text inverse> </Text>
        <Text color={theme.muted}>
          {'  '}
          {keyLabel('prompt.submit')} {prompt.purpose} · {keyLabel('prompt.cancel')} cancel
        </Text>
      </Text>
      {prompt.error ? <Text color={theme.status.error}>{prompt.error}</Text> : null}
    </Box>
  );
}
