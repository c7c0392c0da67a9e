import { Text } from 'ink';
import { tokenCounts, type Turn } from '../../core/episode.js';
import { useTheme } from '../contexts/ThemeContext.js';
import { formatCost } from '../format.js';

/** Adapters record tokens as a count or as a usage object (either dialect); either reads as "in/out tok". */
function formatTokens(tokens: unknown): string | null {
  if (typeof tokens === 'number') return `${tokens} tok`;
  const { input, output } = tokenCounts(tokens);
  return input !== null || output !== null ? `${input ?? '?'}/${output ?? '?'} tok` : null;
}

/** Camera, budget, cost and model timing after a turn: "heading 90° · fov 30° · frame 12 · cost 0.04 · 9 steps left". */
export function TurnInfo({ turn }: { turn: Turn }) {
  const theme = useTheme();
  const camera = turn.camera_after ?? turn.camera_before;
  const parts = [
    camera?.heading_deg != null ? `heading ${Math.round(camera.heading_deg)}°` : null,
    camera?.fov_deg != null ? `fov ${Math.round(camera.fov_deg)}°` : null,
    camera?.frame_index != null ? `frame ${camera.frame_index}` : null,
    `cost ${formatCost(turn.action_cost)}`,
    turn.steps_remaining != null ? `${turn.steps_remaining} steps left` : null,
    turn.model?.latency_s != null ? `${turn.model.latency_s.toFixed(1)} s` : null,
    formatTokens(turn.model?.tokens),
  ].filter(Boolean);
  return (
    <Text color={theme.muted} wrap="truncate-end">
      {parts.join(' · ')}
    </Text>
  );
}
