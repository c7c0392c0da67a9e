/**
 * The Audit screen's port filled with the real audit: the same run as `geolab audit --workspace`
 * (src/audit/run.ts) on the session's workspace, its baseline and last counts in the workspace.
 * Loaded with the screen, never by Home.
 */
import { join } from 'node:path';
import type { Baseline } from '../../audit/baseline.js';
import type { AuditResult } from '../../audit/run.js';
import { workspacePaths } from '../../store/workspace.js';
import type { AuditService } from '../services.js';
import type { WorkspaceSession } from '../workspace-session.js';

/** The workspace folder the screen's exports go to, one new file each. */
const EXPORT_DIR = 'audit-exports';

/** How often a running audit lets the screen draw its progress line. */
const PROGRESS_FRAME_MS = 100;

export function auditService(session: WorkspaceSession, dir: string): AuditService {
  const paths = workspacePaths(dir);
  // The last run, so that an accept updates Home's open count and an export writes it without a new run.
  let last: { result: AuditResult; baseline: Baseline } | undefined;
  return {
    baselineFile: paths.auditBaseline,
    async run(onProgress) {
      const [{ readBaseline }, { runAudit }, { LEAK_RADIUS_KM }, { lastAuditOf, writeLastAudit }] = await Promise.all([
        import('../../audit/baseline.js'),
        import('../../audit/run.js'),
        import('../../audit/detect.js'),
        import('../../audit/last-run.js'),
      ]);
      const baseline = readBaseline(paths.auditBaseline, true);
      let shown = performance.now();
      const result = await runAudit(
        { readWorkspace: true, workspace: session.open, radiusKm: LEAK_RADIUS_KM, baseline, failOn: 'high' },
        async ({ prompts }) => {
          const now = performance.now();
          if (now - shown < PROGRESS_FRAME_MS) return;
          shown = now;
          onProgress(prompts);
          // The audit reads synchronously: without a turn of the event loop no frame is drawn.
          await new Promise((resolve) => setImmediate(resolve));
        },
      );
      last = { result, baseline };
      writeLastAudit(paths.lastAudit, lastAuditOf(result.counts, result.findings, result.summary.seconds));
      return { summary: result.summary, findings: result.findings };
    },
    async accept(accepted, reason) {
      const [{ acceptInBaseline }, { lastAuditOf, writeLastAudit }] = await Promise.all([import('../../audit/baseline.js'), import('../../audit/last-run.js')]);
      const ids = new Set(accepted.map((f) => f.id));
      const { baseline } = acceptInBaseline(paths.auditBaseline, [...ids], reason);
      if (!last) return;
      last.baseline = baseline;
      const { counts, findings, summary } = last.result;
      for (const f of findings) if (ids.has(f.id)) f.baselined = true;
      writeLastAudit(paths.lastAudit, lastAuditOf(counts, findings, summary.seconds));
    },
    async export(format) {
      if (!last) throw new Error('no audit has run yet');
      const [{ summarize, jsonReport }, { geolabVersion, sarifReport }, { writeFileAtomic }] = await Promise.all([
        import('../../audit/report.js'),
        import('../../audit/report-sarif.js'),
        import('../../files.js'),
      ]);
      const { result, baseline } = last;
      const { counts, findings, explained, summary, lineOf } = result;
      // Accepted since the run: the counts say so too.
      const report =
        format === 'json'
          ? jsonReport(summarize(findings, counts, summary.fail_on, summary.seconds, explained), findings)
          : sarifReport(findings, { version: geolabVersion(), lineOf, baseline });
      const file = join(dir, EXPORT_DIR, `audit-${new Date().toISOString().replace(/[:.]/g, '-')}.${format}`);
      writeFileAtomic(file, JSON.stringify(report, null, 2) + '\n');
      return file;
    },
  };
}
