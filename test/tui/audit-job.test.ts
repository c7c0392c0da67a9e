/**
 * `geolab audit --json` and the Audit screen's service run one job (src/audit/job.ts, docs/audit.md
 * "The workspace's audit and the Audit screen"): on the same workspace and baseline their summaries
 * agree count for count, new and accepted alike, and so do their findings.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditSummary } from '../../src/audit/report.js';
import type { Finding } from '../../src/audit/types.js';
import { geolab } from '../helpers/cli.js';
import { auditWorkspace, pinnedEpisode, serbiaEpisode, type AuditWorkspace } from './audit-workspace.js';

let workspace: AuditWorkspace | undefined;

afterEach(async () => {
  await workspace?.close();
  workspace = undefined;
});

/** A summary without its time, which no two runs share. */
function counts(summary: AuditSummary): Omit<AuditSummary, 'seconds'> {
  const { seconds, ...rest } = summary;
  expect(seconds).toBeGreaterThanOrEqual(0);
  return rest;
}

/** Home's last counts, without when and how long. */
function lastCounts(home: string): Record<string, unknown> {
  const { at, seconds, ...rest } = JSON.parse(readFileSync(join(home, 'audit-last.json'), 'utf8')) as Record<string, unknown>;
  expect(typeof at).toBe('string');
  expect(typeof seconds).toBe('number');
  return rest;
}

describe('the audit job', () => {
  it('gives `geolab audit --json` and the Audit screen the same summary and the same new/accepted split', async () => {
    workspace = await auditWorkspace([serbiaEpisode('ep-leak', true), pinnedEpisode('ep-pin')]);
    const { home } = workspace;
    const first = JSON.parse(geolab(['audit', '--workspace', home, '--json']).stdout) as { findings: { id: string }[] };
    expect(first.findings.length).toBeGreaterThanOrEqual(2);
    // One accepted, the others new: the split must agree too.
    const accepted = first.findings[0]!.id;
    expect(geolab(['audit', '--workspace', home, 'baseline', 'add', accepted, '--reason', 'a test fixture']).code).toBe(0);

    const cli = geolab(['audit', '--workspace', home, '--json']);
    expect(cli.code).toBe(1);
    const report = JSON.parse(cli.stdout) as { summary: AuditSummary; findings: { id: string; baselined: boolean }[] };
    const lastOfCli = lastCounts(home);
    const screen = await workspace.services.audit!.run(() => {});

    expect(report.summary.baselined).toBe(1);
    expect(report.summary.new).toBe(first.findings.length - 1);
    expect(report.summary.explained.mentions).toBeGreaterThan(0);
    expect(counts(screen.summary)).toEqual(counts(report.summary));
    const split = (findings: readonly Pick<Finding, 'id' | 'baselined'>[]) => findings.map((f) => [f.id, f.baselined]);
    expect(split(screen.findings)).toEqual(split(report.findings));
    expect(split(screen.findings)).toContainEqual([accepted, true]);
    // Both record the same last counts for Home.
    expect(lastOfCli).toMatchObject({ open: report.summary.new, findings: report.summary.findings });
    expect(lastCounts(home)).toEqual(lastOfCli);
  });
});
