import { Box, Text, type Key } from 'ink';
import { useEffect, useReducer, useState, type Dispatch } from 'react';
import { WORKSPACE_SOURCE } from '../../audit/sources/workspace.js';
import type { Finding } from '../../audit/types.js';
import { AuditExplainedList, AuditFindingDetail, AuditFindingList, findingPlace } from '../components/AuditFindings.js';
import { Footer } from '../components/Footer.js';
import { Header } from '../components/Header.js';
import { HelpOverlay } from '../components/HelpOverlay.js';
import { TextPrompt } from '../components/TextPrompt.js';
import { useNavigation, useNavigationActions, type NavigationActions } from '../contexts/NavigationContext.js';
import { useServices } from '../contexts/ServicesContext.js';
import { useTheme } from '../contexts/ThemeContext.js';
import { useScreenKeys } from '../hooks/useScreenKeys.js';
import { useTerminalSize } from '../hooks/useTerminalSize.js';
import { matches, type HintItem } from '../keys.js';
import type { AuditService } from '../services.js';
import { auditReducer, INITIAL_AUDIT, type AuditAction, type AuditState } from '../state/audit.js';

/** Rows the list cannot use: header, blank, the detail box (7), prompt or notice and keys (3), spare. */
const AUDIT_CHROME_ROWS = 13;

const HINTS: HintItem[] = [
  { commands: ['audit.up', 'audit.down'], label: 'choose' },
  { commands: ['audit.accept'], label: 'accept' },
  { commands: ['audit.open'], label: 'open turn' },
  { commands: ['audit.rerun'], label: 're-run' },
  { commands: ['audit.explained'], label: 'explained' },
  { commands: ['audit.export', 'audit.exportSarif'], label: 'export JSON/SARIF' },
  'audit.help',
  'audit.back',
];

export function AuditScreen() {
  const theme = useTheme();
  const { rows: screenRows } = useTerminalSize();
  const { help, notice } = useNavigation();
  const actions = useNavigationActions();
  const service = useServices().audit;
  const [state, dispatch] = useReducer(auditReducer, INITIAL_AUDIT);
  // Each R starts a run of its own; a run still going when the screen leaves is ignored.
  const [runs, setRuns] = useState(0);

  useEffect(() => {
    if (!service) return;
    let current = true;
    dispatch({ type: 'start' });
    service.run((prompts) => current && dispatch({ type: 'progress', prompts })).then(
      ({ summary, findings }) => current && dispatch({ type: 'finished', summary, findings }),
      (err: Error) => current && dispatch({ type: 'failed', message: err.message }),
    );
    return () => {
      current = false;
    };
  }, [service, runs]);

  const prompt = state.status === 'done' ? state.prompt : null;
  useScreenKeys(prompt ? null : 'audit.help', (input, key) => onKey(state, dispatch, service, actions, () => setRuns((n) => n + 1), input, key));

  const selected = state.status === 'done' ? state.findings[state.selected] : undefined;
  return (
    <Box flexDirection="column" paddingX={1} height="100%">
      <Header title={<Text bold>{title(state)}</Text>} right={state.status === 'done' && state.findings.length ? `${state.selected + 1}/${state.findings.length}` : ''} />
      {help ? (
        <HelpOverlay title="Audit" groups={['audit']} />
      ) : (
        <>
          <Box marginTop={1} flexGrow={1} flexDirection="column">
            {!service ? (
              <Text color={theme.muted}>No workspace to audit.</Text>
            ) : state.status === 'running' ? (
              <Text color={theme.muted}>auditing the workspace&apos;s episodes… {state.prompts} prompts</Text>
            ) : state.status === 'failed' ? (
              <Text color={theme.status.error}>the audit failed: {state.message}</Text>
            ) : state.explained ? (
              <>
                <Text color={theme.muted}>{explainedLine(state)}</Text>
                <AuditExplainedList notes={state.summary.explained.notes} height={screenRows - AUDIT_CHROME_ROWS} />
              </>
            ) : !selected ? (
              <>
                <Text color={theme.status.ok}>
                  {countsLine(state)}: no findings
                </Text>
                {state.summary.explained.mentions ? <Text color={theme.muted}>{explainedLine(state)}</Text> : null}
              </>
            ) : (
              <>
                {state.summary.explained.mentions ? <Text color={theme.muted}>{explainedLine(state)}</Text> : null}
                <AuditFindingList findings={state.findings} groups={state.groups} selected={state.selected} height={screenRows - AUDIT_CHROME_ROWS} />
                <Box flexGrow={1} />
                <AuditFindingDetail finding={selected} baselineFile={service.baselineFile} />
              </>
            )}
          </Box>
          {prompt && selected ? (
            <TextPrompt
              label={`accept ${findingPlace(selected)} ${JSON.stringify(selected.text)} because:`}
              text={prompt.text}
              submit={prompt.saving ? 'saving…' : 'accept'}
              error={prompt.error}
              placeholder="why this is not a leak"
            />
          ) : (
            <Footer notice={notice} hints={HINTS} />
          )}
        </>
      )}
    </Box>
  );
}

/** "3 mentions explained by the agent's own pins": why a clean-looking mention was accepted. */
function explainedLine(state: Extract<AuditState, { status: 'done' }>): string {
  const { mentions, prompts, notes } = state.summary.explained;
  const listed = notes.length < mentions ? ` (the first ${notes.length} listed)` : '';
  const what = `${mentions} mention${mentions === 1 ? '' : 's'} in ${prompts} prompt${prompts === 1 ? '' : 's'} explained by the agent's own pins${listed}`;
  return state.explained ? `${what} · e: back to the findings` : `${what} · e: list them`;
}

function countsLine(state: Extract<AuditState, { status: 'done' }>): string {
  const { prompts, turns } = state.summary;
  return `${prompts.toLocaleString('en-US')} prompts, ${turns.toLocaleString('en-US')} turns`;
}

function title(state: AuditState): string {
  if (state.status !== 'done') return 'AUDIT';
  const open = state.findings.filter((f) => !f.baselined);
  const high = open.filter((f) => f.severity === 'high').length;
  const findings = state.findings.length;
  const counts = findings
    ? `${findings} finding${findings === 1 ? '' : 's'} (${open.length} open${high ? `, ${high} high` : ''}, ${findings - open.length} accepted)`
    : 'no findings';
  return ['AUDIT', countsLine(state), `${state.summary.seconds.toFixed(2)} s`, counts].join(' · ');
}

function onKey(
  state: AuditState,
  dispatch: Dispatch<AuditAction>,
  service: AuditService | undefined,
  actions: NavigationActions,
  rerun: () => void,
  input: string,
  key: Key,
): void {
  if (state.status === 'done' && state.prompt) {
    if (matches('prompt.submit', input, key)) submit(state, dispatch, service);
    else if (matches('prompt.cancel', input, key)) dispatch({ type: 'cancelAccept' });
    else if (matches('prompt.erase', input, key)) dispatch({ type: 'eraseReason' });
    // Printable text only: arrows and other named keys arrive with an empty input.
    else if (input && !key.ctrl && !key.meta) dispatch({ type: 'typeReason', text: input });
    return;
  }
  if (matches('audit.back', input, key)) return actions.back();
  if (matches('audit.rerun', input, key)) return rerun();
  if (state.status !== 'done') return;
  if (matches('audit.explained', input, key)) return dispatch({ type: 'toggleExplained' });
  if (matches('audit.export', input, key)) return exportFindings(service, actions, 'json');
  if (matches('audit.exportSarif', input, key)) return exportFindings(service, actions, 'sarif');
  const finding = state.findings[state.selected];
  if (matches('audit.up', input, key)) dispatch({ type: 'move', delta: -1 });
  else if (matches('audit.down', input, key)) dispatch({ type: 'move', delta: 1 });
  else if (matches('audit.accept', input, key)) {
    if (finding?.baselined) actions.notify('Already accepted: the baseline keeps its reason.');
    else dispatch({ type: 'openAccept' });
  } else if (matches('audit.open', input, key) && finding) openTurn(finding, actions);
}

function submit(state: Extract<AuditState, { status: 'done' }>, dispatch: Dispatch<AuditAction>, service: AuditService | undefined): void {
  const finding = state.findings[state.selected];
  const reason = state.prompt?.text.trim();
  dispatch({ type: 'submitAccept' });
  if (!finding || !reason || !service || state.prompt?.saving) return;
  service.accept(finding, reason).then(
    () => dispatch({ type: 'accepted', id: finding.id }),
    (err: Error) => dispatch({ type: 'acceptFailed', message: err.message }),
  );
}

function exportFindings(service: AuditService | undefined, actions: NavigationActions, format: 'json' | 'sarif'): void {
  service?.export(format).then(
    (file) => actions.notify(`exported the findings as ${format.toUpperCase()} to ${file}`),
    (err: Error) => actions.notify(`not exported: ${err.message}`),
  );
}

/** The Player on the finding's turn: only the workspace's own episodes can be played back. */
function openTurn(finding: Finding, actions: NavigationActions): void {
  if (finding.source !== WORKSPACE_SOURCE || finding.episode_id === undefined) {
    actions.notify(`${findingPlace(finding)} is not an episode of this workspace: nothing to play back.`);
    return;
  }
  actions.open({ screen: 'player', episodeId: finding.episode_id, ...(finding.turn !== undefined ? { turn: finding.turn } : {}) });
}
