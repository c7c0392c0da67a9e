/**
 * The Audit screen on a real workspace: the same audit as `geolab audit --workspace`, findings in
 * groups, the span marked in its context, accept writing the workspace's baseline, the Player on
 * the finding's turn, and a clean audit saying so.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { auditWorkspace, LEAKY_IMAGE_ID, serbiaEpisode, type AuditWorkspace } from './audit-workspace.js';
import { KEY, renderApp } from './render.js';

let workspace: AuditWorkspace | undefined;

afterEach(async () => {
  cleanup();
  await workspace?.close();
  workspace = undefined;
});

async function openAudit(leaky: boolean) {
  workspace = await auditWorkspace([serbiaEpisode('ep-clean', false), ...(leaky ? [serbiaEpisode('ep-leak', true)] : [])]);
  const app = await renderApp({ route: { screen: 'audit' }, services: workspace.services, columns: 140, rows: 40 });
  await app.waitFor((f) => f.includes('no findings') || /AUDIT · .* finding/.test(f));
  return { app, home: workspace.home };
}

describe('Audit screen', () => {
  it('groups the findings by severity and kind and marks the span in its context', async () => {
    const { app } = await openAudit(true);
    const frame = app.frame();
    expect(frame).toContain('AUDIT · 8 prompts, 8 turns');
    expect(frame).toContain('2 findings (2 open, 2 high, 0 accepted)');
    expect(frame).toMatch(/HIGH identity {2}1 finding\n/);
    expect(frame).toMatch(/HIGH coordinates {2}1 finding\n/);
    // The first finding is selected: its evidence, where it is, its context with the span marked below.
    expect(frame).toContain(`› ep-leak turn 2  "${LEAKY_IMAGE_ID}"`);
    expect(frame).toContain('source workspace · prompt ep-leak#2 · episode ep-leak · turn 2 · message 3');
    const lines = frame.split('\n');
    const context = lines.findIndex((l) => l.includes(`Facing east. Image ${LEAKY_IMAGE_ID} loaded`));
    expect(context).toBeGreaterThan(0);
    const carets = lines[context + 1]!;
    expect(carets.indexOf('^')).toBe(lines[context]!.indexOf(LEAKY_IMAGE_ID));
    expect(carets.replace(/│/g, '').trim()).toBe('^'.repeat(LEAKY_IMAGE_ID.length));

    await app.press(KEY.down);
    expect(app.frame()).toContain('› ep-leak turn 2  "43.3209, 21.8958"');
    expect(app.frame()).toMatch(/coordinates: 43\.3209, 21\.8958 is 0\.0 km from the truth/);
  });

  it('accepts a finding with a reason: the baseline file in the workspace has it, Home counts one open finding less', async () => {
    const { app, home } = await openAudit(true);
    const baselineFile = join(home, 'audit-baseline.json');
    expect(existsSync(baselineFile)).toBe(false);
    await app.press('a');
    expect(app.frame()).toContain('because:');
    await app.press(KEY.enter);
    expect(app.frame()).toContain('say why this finding is acceptable');
    await app.press(...'public image id'.split(''), KEY.enter);
    await app.waitFor((f) => f.includes('1 accepted'));
    const baseline = JSON.parse(readFileSync(baselineFile, 'utf8')) as { geolab_audit_baseline: number; accepted: { id: string; reason: string }[] };
    expect(baseline.geolab_audit_baseline).toBe(1);
    expect(baseline.accepted).toHaveLength(1);
    expect(baseline.accepted[0]!.reason).toBe('public image id');
    expect(app.frame()).toContain(`accepted in ${baselineFile}`);
    expect(app.frame()).toMatch(/HIGH identity {2}1 finding, 1 accepted/);
    expect(JSON.parse(readFileSync(join(home, 'audit-last.json'), 'utf8'))).toMatchObject({ open: 1, findings: 2 });

    // Re-run: the accepted finding stays accepted.
    await app.press('R');
    await app.waitFor((f) => f.includes('2 findings (1 open, 1 high, 1 accepted)'));
    expect(app.frame()).toMatch(/HIGH identity {2}1 finding, 1 accepted/);
  });

  it('opens the Player on the turn of the finding', async () => {
    const { app } = await openAudit(true);
    await app.press(KEY.enter);
    await app.waitFor((f) => f.includes('episode ep-leak'));
    // Turn 2 (the pin, the request that carried the leak) is the one shown.
    expect(app.frame()).toMatch(/2 pin\(lat=47\.2, lon=10\.3\) .*◀/);
    expect(app.frame()).toMatch(/turn 2\/3/);
  });

  it('says a clean audit is clean, with the counts', async () => {
    const { app } = await openAudit(false);
    expect(app.frame()).toContain('4 prompts, 4 turns: no findings');
  });
});

describe('Home and the audit', () => {
  it('says no audit ran, opens Audit with its key, and shows the open findings afterwards', async () => {
    workspace = await auditWorkspace([serbiaEpisode('ep-leak', true)]);
    const app = await renderApp({ route: { screen: 'home' }, services: workspace.services, columns: 120, rows: 30 });
    await app.waitFor((f) => f.includes('Audit      not run yet'));
    await app.press('a');
    await app.waitFor((f) => f.includes('2 findings (2 open, 2 high'));
    await app.press('q');
    await app.waitFor((f) => f.includes('Audit      2 open findings: 2 high (last run 4 prompts'));
  });
});
