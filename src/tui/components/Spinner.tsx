import { Text } from 'ink';
import { useEffect, useState } from 'react';
import { useTheme } from '../contexts/ThemeContext.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const FRAME_MS = 120;

/** A spinner, with the seconds since `since` (ms) when given: how long the model has been thinking. */
export function Spinner({ label, since }: { label: string; since?: number }) {
  const theme = useTheme();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), FRAME_MS);
    return () => clearInterval(timer);
  }, []);
  const frame = FRAMES[Math.floor(now / FRAME_MS) % FRAMES.length];
  return (
    <Text>
      <Text color={theme.accent}>{frame}</Text> {label}
      {since !== undefined ? ` ${(Math.max(0, now - since) / 1000).toFixed(1)} s` : ''}
    </Text>
  );
}
