import { Box, Text } from 'ink';
import type { Outcome } from '../../core/episode.js';
import { gameScore, points, referenceReward, verdictFor } from '../../core/scoring.js';
import { useTheme } from '../contexts/ThemeContext.js';
import { bar, formatCost, formatKm, formatLatLon } from '../format.js';
import { verdictTone } from '../theme.js';

const BAR_CELLS = 20;

/**
 * How the episode was scored: verdict, distance, guess and truth, and both reward curves (the
 * environment's game curve and the reference curve boards report, docs/scoring.md), never mixed.
 */
export function OutcomeSummary({ outcome }: { outcome: Outcome }) {
  const theme = useTheme();
  const km = outcome.distance_km ?? null;
  const cost = outcome.action_cost ?? 0;
  const verdict = outcome.verdict ?? (km !== null ? verdictFor(km) : null);
  const colour = theme.verdict[verdictTone(verdict) ?? 'wrong'];
  const game = outcome.reward ?? 0;
  // Older records lack the reference curve; without hierarchy hits it is the plain curve.
  const reference = outcome.train_reward ?? referenceReward(km, cost);
  const headline = [
    verdict ?? 'No usable guess',
    km !== null ? formatKm(km) : null,
    outcome.guess ? `guess ${formatLatLon(...outcome.guess)}` : null,
    outcome.truth ? `truth ${formatLatLon(...outcome.truth)}` : null,
    outcome.country_hit != null ? `country ${outcome.country_hit ? '✓' : '✗'}` : null,
  ].filter(Boolean);
  const beforeCost = outcome.score_before_cost ?? (km !== null ? gameScore(km) : 0);
  return (
    <Box flexDirection="column" flexShrink={0}>
      <Text bold color={colour} wrap="truncate-end">
        {headline.join(' · ')}
      </Text>
      <Text wrap="truncate-end">
        {'game      '}
        <Text color={colour}>{bar(game, BAR_CELLS)}</Text>
        {` ${game.toFixed(4)}  score ${beforeCost.toFixed(2)}${km !== null ? ` (${points(km).toLocaleString('en-US')} pts)` : ''} · cost ${formatCost(cost)}`}
      </Text>
      <Text wrap="truncate-end">
        {'reference '}
        <Text color={colour}>{bar(reference, BAR_CELLS)}</Text>
        {` ${reference.toFixed(4)}`}
      </Text>
    </Box>
  );
}
