import { Box, Text } from 'ink';
import { useTheme } from '../contexts/ThemeContext.js';
import { keyLabel } from '../keys.js';

export interface TextPromptProps {
  /** What is asked, before the text: "filter:", "guess (lat, lon):". */
  label: string;
  text: string;
  /** What enter does, after the key's label: "guess", "filter". */
  submit: string;
  /** Why the last submit was refused, shown under the line until the text changes. */
  error: string | null;
  /** Shown dimmed in place of the text while nothing is typed. */
  placeholder?: string;
}

/**
 * The one inline prompt of the TUI: a line at the bottom of a screen where a person types, with the
 * 'prompt.*' keys (enter, esc, backspace) spelled out from the key table.
 */
export function TextPrompt({ label, text, submit, error, placeholder }: TextPromptProps) {
  const theme = useTheme();
  return (
    <Box flexDirection="column" flexShrink={0}>
      <Text>
        <Text bold color={theme.accent}>
          {label}{' '}
        </Text>
        {text}
        <Text inverse> </Text>
        {!text && placeholder ? <Text color={theme.muted}>{placeholder}</Text> : null}
        <Text color={theme.muted}>
          {'  '}
          {keyLabel('prompt.submit')} {submit} · {keyLabel('prompt.cancel')} cancel
        </Text>
      </Text>
      {error ? <Text color={theme.status.error}>{error}</Text> : null}
    </Box>
  );
}
