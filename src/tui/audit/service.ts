/**
 * The Audit screen's port filled with the real audit: the same run as `geolab audit --workspace`
 * (src/audit/run.ts) on the session's workspace, its baseline and last counts in the workspace.
 * Loaded with the screen, never by Home.
 */
import type { AuditCounts } from '../../audit/report.js';
import type { Finding } from '../../audit/types.js';
import { workspacePaths } from '../../store/workspace.js';
import type { AuditService } from '../services.js';
import type { WorkspaceSession } from '../workspace-session.js';

/** How often a running audit lets the screen draw its progress line. */
const PROGRESS_FRAME_MS = 100;

export function auditService(session: WorkspaceSession, dir: string): AuditService {
  const paths = workspacePaths(dir);
  // The last run's findings, so that an accept updates Home's open count without a new run.
  let last: { counts: AuditCounts; findings: Finding[]; seconds: number } | undefined;
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
      last = { counts: result.counts, findings: result.findings, seconds: result.summary.seconds };
      writeLastAudit(paths.lastAudit, lastAuditOf(last.counts, last.findings, last.seconds));
      return { summary: result.summary, findings: result.findings };
    },
    async accept(finding, reason) {
      const [{ acceptInBaseline }, { lastAuditOf, writeLastAudit }] = await Promise.all([import('../../audit/baseline.js'), import('../../audit/last-run.js')]);
      acceptInBaseline(paths.auditBaseline, finding.id, reason);
      if (!last) return;
      for (const f of last.findings) if (f.id === finding.id) f.baselined = true;
      writeLastAudit(paths.lastAudit, lastAuditOf(last.counts, last.findings, last.seconds));
    },
  };
}
