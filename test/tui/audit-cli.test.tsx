/**
 * `geolab audit --workspace` and the Audit screen are one audit: the command keeps its baseline and
 * last counts in the workspace, where the screen and Home read them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { geolab } from '../helpers/cli.js';
import { auditWorkspace, serbiaEpisode, type AuditWorkspace } from './audit-workspace.js';
import { renderApp } from './render.js';

let workspace: AuditWorkspace | undefined;

afterEach(async () => {
  cleanup();
  await workspace?.close();
  workspace = undefined;
});

describe('geolab audit --workspace and the Audit screen', () => {
  it('share the baseline in the workspace: what --update accepts, the screen shows accepted, and Home counts no open finding', async () => {
    workspace = await auditWorkspace([serbiaEpisode('ep-leak', true)]);
    const { home } = workspace;
    const first = geolab(['audit', '--workspace', home, '--json']);
    expect(first.code).toBe(1);
    const report = JSON.parse(first.stdout) as { summary: { new: number }; findings: { id: string }[] };
    expect(report.summary.new).toBe(2);
    expect(JSON.parse(readFileSync(join(home, 'audit-last.json'), 'utf8'))).toMatchObject({ prompts: 4, findings: 2, open: 2, open_by_severity: { high: 2 } });

    const update = geolab(['audit', '--workspace', home, '--update']);
    expect(update.code).toBe(0);
    const baseline = JSON.parse(readFileSync(join(home, 'audit-baseline.json'), 'utf8')) as { accepted: { id: string }[] };
    expect(baseline.accepted.map((e) => e.id).sort()).toEqual(report.findings.map((f) => f.id).sort());
    expect(existsSync('geolab-audit-baseline.json')).toBe(false);
    expect(geolab(['audit', '--workspace', home]).code).toBe(0);

    const app = await renderApp({ route: { screen: 'home' }, services: workspace.services, columns: 120, rows: 30 });
    await app.waitFor((f) => f.includes('Audit      0 open findings (last run 4 prompts'));
    await app.press('a');
    await app.waitFor((f) => f.includes('2 findings (0 open, 2 accepted)'));
    expect(app.frame()).toMatch(/HIGH identity {2}1 finding, 1 accepted/);
  });
});
