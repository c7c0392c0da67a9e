import { Box, Text, type Key } from 'ink';
import { useEffect, useReducer, useState, type Dispatch } from 'react';
import { WORKSPACE_SOURCE } from '../../audit/sources/workspace.js';
import { isCompleted } from '../../core/episode.js';
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
import { keyLabel, matches, type HintItem } from '../keys.js';
import type { AuditService } from '../services.js';
import { auditBack, auditReducer, INITIAL_AUDIT, type AcceptPrompt, type AuditAction, type AuditState } from '../state/audit.js';
import { findingRequest, type FindingRequest } from '../audit/request.js';
import { RequestView } from '../components/RequestView.js';
import { useWorkspaceState } from '../contexts/WorkspaceContext.js';
import { read, type Loading } from '../hooks/useWorkspace.js';
import type { WorkspaceView } from '../services.js';

/** Rows the list cannot use: header, blank, the detail box (7), prompt or notice and keys (3), spare. */
const AUDIT_CHROME_ROWS = 13;

const HINTS: HintItem[] = [
  { commands: ['audit.up', 'audit.down'], label: 'choose' },
  { commands: ['audit.search'], label: 'search' },
  { commands: ['audit.accept'], label: 'accept' },
  { commands: ['audit.acceptKind', 'audit.acceptSource'], label: 'accept kind/source' },
  { commands: ['audit.open'], label: 'open turn' },
  { commands: ['audit.request'], label: 'request' },
  { commands: ['audit.rerun'], label: 're-run' },
  { commands: ['audit.explained'], label: 'explained' },
  { commands: ['audit.export', 'audit.exportSarif'], label: 'export JSON/SARIF' },
  'audit.help',
  'audit.back',
];

const REQUEST_HINTS: HintItem[] = [
  { commands: ['request.up', 'request.down'], label: 'scroll' },
  { commands: ['request.pageUp', 'request.pageDown'], label: 'page' },
  { commands: ['request.top', 'request.bottom'], label: 'top/bottom' },
  { commands: ['request.close'], label: 'close' },
];

/** Rows besides the request view: the header, a blank, the footer. */
const REQUEST_CHROME_ROWS = 4;

/** The request view of `p`: the request's lines, the span's line marked, and where it is scrolled to. */
interface RequestOpen extends FindingRequest {
  offset: number;
}

export function AuditScreen() {
  const theme = useTheme();
  const { rows: screenRows, columns } = useTerminalSize();
  const workspace = useWorkspaceState();
  const [request, setRequest] = useState<RequestOpen | null>(null);
  const requestHeight = Math.max(3, screenRows - REQUEST_CHROME_ROWS);
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
  const typing = state.status === 'done' && state.search?.typing === true;
  const openRequest = (finding: Finding) => {
    const opened = requestOfFinding(finding, workspace, columns - 2);
    if (typeof opened === 'string') return actions.notify(opened);
    setRequest({ ...opened, offset: Math.max(0, Math.min(opened.mark - 2, opened.lines.length - (requestHeight - 1))) });
  };
  useScreenKeys(prompt || typing ? null : request ? 'request.help' : 'audit.help', (input, key) => {
    if (request) return setRequest(scrollRequest(request, requestHeight, input, key));
    onKey(state, dispatch, service, actions, () => setRuns((n) => n + 1), openRequest, input, key);
  });

  const selected = state.status === 'done' ? state.findings[state.selected] : undefined;
  if (request) {
    return (
      <Box flexDirection="column" paddingX={1} height="100%">
        {help ? (
          <HelpOverlay title="Request" groups={['request']} />
        ) : (
          <>
            <RequestView turn={request.turn} lines={request.lines} offset={request.offset} height={requestHeight} mark={request.mark} />
            <Footer notice={notice} hints={REQUEST_HINTS} />
          </>
        )}
      </Box>
    );
  }
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
            ) : !selected && !state.search ? (
              <>
                <Text color={theme.status.ok}>
                  {countsLine(state)}: no findings
                </Text>
                {state.summary.explained.mentions ? <Text color={theme.muted}>{explainedLine(state)}</Text> : null}
              </>
            ) : !selected ? (
              <Text color={theme.muted}>{searchLine(state)}</Text>
            ) : (
              <>
                {state.search ? <Text color={theme.muted}>{searchLine(state)}</Text> : state.summary.explained.mentions ? <Text color={theme.muted}>{explainedLine(state)}</Text> : null}
                <AuditFindingList findings={state.findings} groups={state.groups} selected={state.selected} height={screenRows - AUDIT_CHROME_ROWS} />
                <Box flexGrow={1} />
                <AuditFindingDetail finding={selected} baselineFile={service.baselineFile} />
              </>
            )}
          </Box>
          {prompt && selected ? (
            <TextPrompt
              label={`${acceptLabel(prompt, selected)} because:`}
              text={prompt.text}
              submit={prompt.saving ? 'saving…' : 'accept'}
              error={prompt.error}
              placeholder="why this is not a leak"
            />
          ) : state.status === 'done' && state.search?.typing ? (
            <TextPrompt label="search:" text={state.search.text} submit="keep the filter" error={null} placeholder="kind, place, text or evidence" />
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
  return state.explained ? `${what} · ${keyLabel('audit.explained')} or esc: back to the findings` : `${what} · ${keyLabel('audit.explained')}: list them`;
}

/** What the accept prompt asks the reason for: the finding, or every open finding of a kind or source. */
function acceptLabel(prompt: AcceptPrompt, selected: Finding): string {
  const n = prompt.targets.length;
  const all = `${n} open finding${n === 1 ? '' : 's'}`;
  switch (prompt.scope.by) {
    case 'finding':
      return `accept ${findingPlace(selected)} ${JSON.stringify(selected.text)}`;
    case 'kind':
      return `accept ${all} of kind ${prompt.scope.kind.replace('_', ' ')}`;
    case 'source':
      return `accept ${all} of source ${prompt.scope.source}`;
  }
}

function searchLine(state: Extract<AuditState, { status: 'done' }>): string {
  const text = state.search?.text ?? '';
  const found = state.findings.length ? `${state.findings.length} of ${state.all.length} findings` : `none of ${state.all.length} findings matches`;
  return `search ${JSON.stringify(text)}: ${found} · ${keyLabel('audit.search')} edit · esc clear`;
}

function countsLine(state: Extract<AuditState, { status: 'done' }>): string {
  const { prompts, turns } = state.summary;
  return `${prompts.toLocaleString('en-US')} prompts, ${turns.toLocaleString('en-US')} turns`;
}

function title(state: AuditState): string {
  if (state.status !== 'done') return 'AUDIT';
  const open = state.all.filter((f) => !f.baselined);
  const high = open.filter((f) => f.severity === 'high').length;
  const findings = state.all.length;
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
  openRequest: (finding: Finding) => void,
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
  if (state.status === 'done' && state.search?.typing) {
    // The list filters as the search is typed; the arrows still move through what it leaves.
    if (matches('prompt.submit', input, key)) dispatch({ type: 'keepSearch' });
    else if (matches('prompt.cancel', input, key)) dispatch({ type: 'clearSearch' });
    else if (matches('prompt.erase', input, key)) dispatch({ type: 'eraseSearch' });
    else if (key.upArrow || key.downArrow) dispatch({ type: 'move', delta: key.upArrow ? -1 : 1 });
    else if (input && !key.ctrl && !key.meta) dispatch({ type: 'typeSearch', text: input });
    return;
  }
  // The explained list closes, and esc clears a kept search, before the screen is left.
  if (matches('audit.back', input, key)) {
    const back = auditBack(state, key.escape);
    return back ? dispatch(back) : actions.back();
  }
  if (matches('audit.rerun', input, key)) return rerun();
  if (state.status !== 'done') return;
  if (matches('audit.explained', input, key)) return dispatch({ type: 'toggleExplained' });
  if (matches('audit.export', input, key)) return exportFindings(service, actions, 'json');
  if (matches('audit.exportSarif', input, key)) return exportFindings(service, actions, 'sarif');
  if (matches('audit.search', input, key)) return dispatch({ type: 'openSearch' });
  const finding = state.findings[state.selected];
  if (matches('audit.up', input, key)) dispatch({ type: 'move', delta: -1 });
  else if (matches('audit.down', input, key)) dispatch({ type: 'move', delta: 1 });
  else if (matches('audit.accept', input, key)) {
    if (finding?.baselined) actions.notify('Already accepted: the baseline keeps its reason.');
    else dispatch({ type: 'openAccept' });
  } else if (finding && (matches('audit.acceptKind', input, key) || matches('audit.acceptSource', input, key))) {
    const by = matches('audit.acceptKind', input, key) ? 'kind' : 'source';
    const open = state.all.some((f) => !f.baselined && (by === 'kind' ? f.kind === finding.kind : f.source === finding.source));
    if (open) dispatch({ type: 'openAcceptAll', by });
    else actions.notify(`Every finding of this ${by} is accepted already.`);
  } else if (matches('audit.open', input, key) && finding) openTurn(finding, actions);
  else if (matches('audit.request', input, key) && finding) openRequest(finding);
}

/** The request view of a finding, or why there is none. */
function requestOfFinding(finding: Finding, workspace: Loading<WorkspaceView> | null, width: number): FindingRequest | string {
  if (finding.source !== WORKSPACE_SOURCE || finding.episode_id === undefined || finding.turn === undefined || finding.message < 0) {
    return `${findingPlace(finding)} is not a turn of this workspace's episodes: no request to show.`;
  }
  const loaded = read(workspace, (view) => view.loadEpisode(finding.episode_id as string));
  if (loaded.status !== 'ready' || !loaded.value) return `episode ${finding.episode_id} could not be read${loaded.status === 'failed' ? `: ${loaded.message}` : ''}.`;
  const record = loaded.value;
  if (!isCompleted(record)) return `episode ${finding.episode_id} failed: it recorded no turns.`;
  return findingRequest(finding, record.turns, width) ?? `turn ${finding.turn} of ${finding.episode_id} recorded no request.`;
}

/** The request view after a key: scrolled, or null when closed. */
function scrollRequest(request: RequestOpen, height: number, input: string, key: Key): RequestOpen | null {
  if (matches('request.close', input, key)) return null;
  const max = Math.max(0, request.lines.length - (height - 1));
  const page = Math.max(1, height - 2);
  const to = (offset: number) => ({ ...request, offset: Math.max(0, Math.min(max, offset)) });
  if (matches('request.up', input, key)) return to(request.offset - 1);
  if (matches('request.down', input, key)) return to(request.offset + 1);
  if (matches('request.pageUp', input, key)) return to(request.offset - page);
  if (matches('request.pageDown', input, key)) return to(request.offset + page);
  if (matches('request.top', input, key)) return to(0);
  if (matches('request.bottom', input, key)) return to(max);
  return request;
}

function submit(state: Extract<AuditState, { status: 'done' }>, dispatch: Dispatch<AuditAction>, service: AuditService | undefined): void {
  const targets = state.prompt?.targets ?? [];
  const reason = state.prompt?.text.trim();
  dispatch({ type: 'submitAccept' });
  if (!targets.length || !reason || !service || state.prompt?.saving) return;
  service.accept(targets, reason).then(
    () => dispatch({ type: 'accepted', ids: targets.map((f) => f.id) }),
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
