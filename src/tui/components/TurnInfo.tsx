import { Text } from 'ink';
import { tokenCounts, type Turn } from '../../core/episode.js';
import { useTheme } from '../contexts/ThemeContext.js';
import { formatCost } from '../format.js';
import { formatBudget, type TurnBudget } from '../turn-text.js';

/** Adapters record tokens as a count or as a usage object (either dialect); either reads as "in/out tok". */
function formatTokens(tokens: unknown): string | null {
  if (typeof tokens === 'number') return `${tokens} tok`;
  const { input, output } = tokenCounts(tokens);
  return input !== null || output !== null ? `${input ?? '?'}/${output ?? '?'} tok` : null;
}

/**
 * The budget the model was told, and the environment's count beside it only when the two differ:
 * harness and environment count differently, and the model acts on what it was told.
 */
function budgetParts({ told, environment }: TurnBudget): string[] {
  const env = environment !== null ? `environment ${environment} steps left` : null;
  if (!told) return ['budget told: not recorded', ...(env ? [env] : [])];
  return [`told ${formatBudget(told)}`, ...(env && environment !== told.left ? [env] : [])];
}

/**
 * Cost, budget, camera and model timing of a turn: "cost 0.04 · told 11 tool calls left ·
 * environment 23 steps left · heading 90° · fov 30° · frame 12". Without a `budget` (a person
 * playing is told nothing) the environment's steps left after the turn.
 */
export function TurnInfo({ turn, budget }: { turn: Turn; budget?: TurnBudget }) {
  const theme = useTheme();
  const camera = turn.camera_after ?? turn.camera_before;
  // Budget and cost first: on a narrow terminal the line is cut from the end.
  const parts = [
    `cost ${formatCost(turn.action_cost)}`,
    ...(budget ? budgetParts(budget) : [turn.steps_remaining != null ? `${turn.steps_remaining} steps left` : null]),
    camera?.heading_deg != null ? `heading ${Math.round(camera.heading_deg)}°` : null,
    camera?.fov_deg != null ? `fov ${Math.round(camera.fov_deg)}°` : null,
    camera?.frame_index != null ? `frame ${camera.frame_index}` : null,
    turn.model?.latency_s != null ? `${turn.model.latency_s.toFixed(1)} s` : null,
    formatTokens(turn.model?.tokens),
  ].filter(Boolean);
  return (
    <Text color={theme.muted} wrap="truncate-end">
      {parts.join(' · ')}
    </Text>
  );
}
