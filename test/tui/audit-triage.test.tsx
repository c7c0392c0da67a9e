/**
 * Triage on the Audit screen, on a real workspace: `/` filters the findings as it is typed (esc
 * clears it), `A` and `S` accept every open finding of a kind or of a source with one reason (one
 * write of the baseline), `p` shows the finding's request scrolled to the line of its span.
 */
import { vi } from 'vitest';

// Chalk decides its colour level when first imported: forced on, so that the marked line's inverse
// video (SGR 7) is drawn; the other tests read the frame without escape codes.
vi.hoisted(() => {
  process.env.FORCE_COLOR = '1';
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import { auditWorkspace, LEAKY_IMAGE_ID, serbiaEpisode, type AuditWorkspace } from './audit-workspace.js';
import { KEY, renderApp } from './render.js';

let workspace: AuditWorkspace | undefined;

const ESC = String.fromCharCode(27);
const SGR = new RegExp(`${ESC}\\[[0-9;]*m`, 'g');
const INVERSE = `${ESC}[7m`;

afterEach(async () => {
  cleanup();
  await workspace?.close();
  workspace = undefined;
});

/** Two leaky episodes: an identity and a coordinates finding in each, all of source "workspace". */
async function openAudit(rows = 40) {
  workspace = await auditWorkspace([serbiaEpisode('ep-a', true), serbiaEpisode('ep-b', true), serbiaEpisode('ep-clean', false)]);
  const app = await renderApp({ route: { screen: 'audit' }, services: workspace.services, columns: 160, rows });
  await app.waitFor((f) => /AUDIT · .* finding/.test(f));
  // The frame as read, without escape codes; `raw` keeps them.
  const plain = { ...app, raw: app.frame, frame: () => app.frame().replace(SGR, ''), waitFor: (ok: (f: string) => boolean) => app.waitFor((f) => ok(f.replace(SGR, ''))) };
  return { app: plain, home: workspace.home };
}

describe('Audit screen triage', () => {
  it('says the new keys in its hint line', async () => {
    const { app } = await openAudit();
    const footer = app.frame().split('\n').slice(-2).join(' ');
    for (const hint of ['/ search', 'A/S accept kind/source', 'p request']) expect(footer).toContain(hint);
  });

  it('/ filters the findings as it is typed; enter keeps the filter, esc clears it without leaving', async () => {
    const { app } = await openAudit();
    expect(app.frame()).toContain('4 findings (4 open, 4 high, 0 accepted)');
    await app.press('/');
    expect(app.frame()).toContain('search:');
    await app.press(...'coord'.split(''));
    let frame = app.frame();
    expect(frame).toContain('search "coord": 2 of 4 findings');
    expect(frame).toMatch(/HIGH coordinates {2}2 findings/);
    expect(frame).not.toContain('HIGH identity');
    // Typing on narrows further; the arrows still move through what is left.
    await app.press(...'inates ep-b'.split(''));
    expect(app.frame()).toContain('search "coordinates ep-b": 1 of 4 findings');
    await app.press(...Array(5).fill(KEY.backspace));
    expect(app.frame()).toContain('search "coordinates": 2 of 4 findings');
    await app.press(KEY.down);
    expect(app.frame()).toContain('› ep-b turn 2  "43.3209, 21.8958"');
    // Enter keeps the filter: the keys are the screen's again (j moves, q would leave).
    await app.press(KEY.enter);
    frame = app.frame();
    expect(frame).not.toContain('search:');
    expect(frame).toContain('search "coordinates": 2 of 4 findings');
    await app.press('k');
    expect(app.frame()).toContain('› ep-a turn 2  "43.3209, 21.8958"');
    // Esc clears the filter and stays on the screen.
    await app.press(KEY.escape);
    frame = app.frame();
    expect(frame).toContain('HIGH identity');
    expect(frame).not.toContain('search "');
    expect(frame).toContain('AUDIT ·');
    // A search nothing matches says so.
    await app.press('/', ...'zzz'.split(''));
    expect(app.frame()).toContain('search "zzz": none of 4 findings matches');
  });

  it('A accepts every open finding of the kind with one reason, S every open one of the source', async () => {
    const { app, home } = await openAudit();
    const baselineFile = join(home, 'audit-baseline.json');
    await app.press('A');
    expect(app.frame()).toContain('accept 2 open findings of kind identity because:');
    await app.press(KEY.enter);
    expect(app.frame()).toContain('say why these findings are acceptable');
    await app.press(...'public image ids'.split(''), KEY.enter);
    await app.waitFor((f) => f.includes('4 findings (2 open, 2 high, 2 accepted)'));
    expect(app.frame()).toMatch(/HIGH identity {2}2 findings, 2 accepted/);
    let accepted = (JSON.parse(readFileSync(baselineFile, 'utf8')) as { accepted: { id: string; reason: string }[] }).accepted;
    expect(accepted.map((e) => e.reason)).toEqual(['public image ids', 'public image ids']);

    // Every finding of its kind accepted: A says so instead of asking.
    await app.press('A');
    expect(app.frame()).toContain('Every finding of this kind is accepted already.');
    await app.press('S');
    expect(app.frame()).toContain('accept 2 open findings of source workspace because:');
    await app.press(...'synthetic workspace'.split(''), KEY.enter);
    await app.waitFor((f) => f.includes('4 findings (0 open, 4 accepted)'));
    accepted = (JSON.parse(readFileSync(baselineFile, 'utf8')) as { accepted: { id: string; reason: string }[] }).accepted;
    expect(accepted).toHaveLength(4);
    expect(accepted.filter((e) => e.reason === 'synthetic workspace')).toHaveLength(2);
    expect(JSON.parse(readFileSync(join(home, 'audit-last.json'), 'utf8'))).toMatchObject({ open: 0, findings: 4 });
  });

  it("p opens the finding's request scrolled to its span, marked; q closes it", async () => {
    // A terminal too short for the whole request: the view must scroll to the span.
    const { app } = await openAudit(12);
    await app.press('p');
    await app.waitFor((f) => f.includes('request of turn 2'));
    const lines = app.raw().split('\n');
    const span = lines.findIndex((l) => l.includes(LEAKY_IMAGE_ID));
    expect(span).toBeGreaterThan(0);
    // The span's line is drawn inverted (SGR 7); the request's first message is scrolled out of view.
    expect(lines[span]).toContain(INVERSE);
    expect(lines.filter((l) => l.includes(INVERSE))).toHaveLength(1);
    expect(app.frame()).not.toContain('── 1 system');
    expect(app.frame()).toMatch(/request of turn 2 · lines [2-9]\d*–\d+ of \d+/);
    await app.press('g');
    expect(app.frame()).toContain('── 1 system');
    await app.press('q');
    await app.waitFor((f) => f.includes('AUDIT ·') && !f.includes('request of turn'));
    expect(app.frame()).toContain('› ep-a turn 2');
  });
});
