/**
 * The Audit screen says which mentions the agent's own pins explain (and lists them on a key), and
 * exports the findings as JSON or SARIF into the workspace, saying where.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { cleanup } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { CompletedEpisode } from '../../src/core/episode.js';
import { auditWorkspace, pinnedEpisode, serbiaEpisode, type AuditWorkspace } from './audit-workspace.js';
import { KEY, renderApp } from './render.js';

let workspace: AuditWorkspace | undefined;

afterEach(async () => {
  cleanup();
  await workspace?.close();
  workspace = undefined;
});

async function open(episodes: CompletedEpisode[]) {
  workspace = await auditWorkspace(episodes);
  const app = await renderApp({ route: { screen: 'audit' }, services: workspace.services, columns: 160, rows: 40 });
  await app.waitFor((f) => f.includes('no findings') || /AUDIT · .* finding/.test(f));
  return app;
}

describe('Audit screen: explained mentions', () => {
  it("says how many mentions the agent's own pins explain, and lists them with the point on e", async () => {
    const app = await open([pinnedEpisode('ep-pin')]);
    expect(app.frame()).toContain('no findings');
    expect(app.frame()).toContain("1 mention in 1 prompt explained by the agent's own pins · e: list them");
    await app.press('e');
    await app.waitFor((f) => f.includes('e or esc: back to the findings'));
    expect(app.frame()).toContain('ep-pin turn 2 "Serbia"');
    expect(app.frame()).toContain("the agent's point 44.8176, 20.4569 is in Republic of Serbia: explained");
    await app.press('e');
    await app.waitFor((f) => f.includes('e: list them'));
  });

  it('esc and q in the explained list go back to the findings, as its hint says; on the findings esc leaves', async () => {
    const app = await open([serbiaEpisode('ep-leak', true), pinnedEpisode('ep-pin')]);
    for (const back of [KEY.escape, 'q']) {
      await app.press('e');
      await app.waitFor((f) => f.includes('e or esc: back to the findings'));
      expect(app.frame()).not.toContain('ep-leak turn 2');
      await app.press(back);
      await app.waitFor((f) => f.includes('e: list them') && f.includes('ep-leak turn 2'));
      expect(app.frame()).toContain('AUDIT ·');
    }
    await app.press(KEY.escape);
    await app.waitFor((f) => !f.includes('AUDIT ·'));
  });
});

describe('Audit screen: export', () => {
  it('writes the findings as JSON, then as SARIF, to new files in the workspace and says where', async () => {
    const app = await open([serbiaEpisode('ep-leak', true), pinnedEpisode('ep-pin')]);
    await app.press('x');
    await app.waitFor((f) => f.includes('exported the findings as JSON to'));
    const jsonFile = /exported the findings as JSON to (\S+\.json)/.exec(app.frame())![1]!;
    expect(dirname(dirname(jsonFile))).toBe(workspace!.home);
    const report = JSON.parse(readFileSync(jsonFile, 'utf8')) as { summary: { findings: number; explained: { mentions: number } }; findings: { kind: string }[] };
    expect(report.findings.map((f) => f.kind).sort()).toEqual(['coordinates', 'identity']);
    expect(report.summary).toMatchObject({ findings: 2, explained: { mentions: 1 } });

    await app.press('X');
    await app.waitFor((f) => f.includes('exported the findings as SARIF to'));
    const sarifFile = /exported the findings as SARIF to (\S+\.sarif)/.exec(app.frame())![1]!;
    expect(existsSync(sarifFile)).toBe(true);
    const sarif = JSON.parse(readFileSync(sarifFile, 'utf8')) as { version: string; runs: { results: { ruleId: string }[] }[] };
    expect(sarif.version).toBe('2.1.0');
    expect(sarif.runs[0]!.results.map((r) => r.ruleId).sort()).toEqual(['coordinates', 'identity']);
  });
});
