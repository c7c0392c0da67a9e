import { Box, Text } from 'ink';
import type { Explanation, Finding, Severity } from '../../audit/types.js';
import { useTheme } from '../contexts/ThemeContext.js';
import type { Colour, Theme } from '../theme.js';
import { spanInContext, type FindingGroup } from '../state/audit.js';

const SEVERITY_LABEL: Record<Severity, string> = { high: 'HIGH', medium: 'MED ', low: 'LOW ' };

export function severityColour(theme: Theme, severity: Severity): Colour {
  return severity === 'high' ? theme.status.error : severity === 'medium' ? theme.status.warn : theme.muted;
}

/** Where a finding (or an explained mention) was: the episode and turn when it is a turn of one, else the prompt. */
export function findingPlace(f: Finding | Explanation): string {
  return f.episode_id !== undefined ? `${f.episode_id}${f.turn !== undefined ? ` turn ${f.turn}` : ''}` : f.prompt_id;
}

type Row = { group: FindingGroup } | { finding: Finding; index: number };

/**
 * The findings under their group lines (severity, kind, counts), a window of `height` rows that
 * keeps the selected finding in view.
 */
export function AuditFindingList({ findings, groups, selected, height }: { findings: readonly Finding[]; groups: readonly FindingGroup[]; selected: number; height: number }) {
  const theme = useTheme();
  const rows: Row[] = [];
  for (const group of groups) {
    rows.push({ group });
    for (let i = group.first; i < group.first + group.count; i++) rows.push({ finding: findings[i]!, index: i });
  }
  const at = rows.findIndex((r) => 'finding' in r && r.index === selected);
  const visible = Math.max(1, height);
  const top = Math.max(0, Math.min(rows.length - visible, at - Math.floor(visible / 2)));
  return (
    <Box flexDirection="column" flexShrink={0}>
      {rows.slice(top, top + visible).map((row) =>
        'group' in row ? (
          <Text key={`g-${row.group.severity}-${row.group.kind}`} wrap="truncate-end">
            <Text bold color={severityColour(theme, row.group.severity)}>
              {SEVERITY_LABEL[row.group.severity]}
            </Text>{' '}
            <Text bold>{row.group.kind.replace('_', ' ')}</Text>
            <Text color={theme.muted}>
              {'  '}
              {row.group.count} finding{row.group.count === 1 ? '' : 's'}
              {row.group.accepted ? `, ${row.group.accepted} accepted` : ''}
            </Text>
          </Text>
        ) : (
          <Text key={`f-${row.index}`} wrap="truncate-end" inverse={row.index === selected}>
            {row.index === selected ? ' › ' : '   '}
            {findingPlace(row.finding)}
            {'  '}
            {JSON.stringify(row.finding.text || row.finding.context)}
            {'  '}
            <Text color={theme.muted}>{row.finding.evidence}</Text>
            {row.finding.baselined ? <Text color={theme.status.ok}> · accepted</Text> : null}
          </Text>
        ),
      )}
    </Box>
  );
}

/** One line of the context, newlines shown as ↵ so that the marks under the span line up. */
function oneLine(text: string): string {
  return text.replace(/\r?\n|\r|\t/g, (m) => (m.length === 2 ? '↵ ' : m === '\t' ? ' ' : '↵'));
}

/** The selected finding: evidence, where it is, and its context with the span marked. */
export function AuditFindingDetail({ finding, baselineFile }: { finding: Finding; baselineFile: string }) {
  const theme = useTheme();
  const [before, span, after] = spanInContext(finding).map(oneLine) as [string, string, string];
  const where = [
    `source ${finding.source}`,
    `prompt ${finding.prompt_id}`,
    finding.episode_id !== undefined ? `episode ${finding.episode_id}` : null,
    finding.turn !== undefined ? `turn ${finding.turn}` : null,
    finding.message >= 0 ? `message ${finding.message}` : null,
  ].filter(Boolean);
  return (
    <Box flexDirection="column" borderStyle="round" paddingX={1} flexShrink={0}>
      <Text wrap="truncate-end">
        <Text bold color={severityColour(theme, finding.severity)}>
          {finding.severity}
        </Text>{' '}
        <Text bold>{finding.kind.replace('_', ' ')}</Text>: {finding.evidence}
      </Text>
      <Text color={theme.muted} wrap="truncate-end">
        {where.join(' · ')}
      </Text>
      <Text wrap="truncate-end">
        {before}
        <Text inverse bold>
          {span}
        </Text>
        {after}
      </Text>
      {span ? <Text color={theme.accent} wrap="truncate-end">{' '.repeat(before.length) + '^'.repeat(span.length)}</Text> : null}
      <Text color={theme.muted} wrap="truncate-end">
        {finding.baselined ? `accepted in ${baselineFile}` : `open · id ${finding.id}`}
      </Text>
    </Box>
  );
}

/** The mentions the agent's own points explain: where, what, and which point explains it. */
export function AuditExplainedList({ notes, height }: { notes: readonly Explanation[]; height: number }) {
  const theme = useTheme();
  return (
    <Box flexDirection="column" flexShrink={0} marginTop={1}>
      {notes.slice(0, Math.max(1, Math.floor(height / 2))).map((n, i) => (
        <Box key={i} flexDirection="column">
          <Text wrap="truncate-end">
            <Text bold>{n.kind.padEnd(12)}</Text>
            {findingPlace(n)} {JSON.stringify(n.text)}
          </Text>
          <Text color={theme.muted} wrap="truncate-end">
            {'  '}
            {n.evidence}
          </Text>
        </Box>
      ))}
    </Box>
  );
}
