/**
 * The Audit screen's port filled with the audit job (src/audit/job.ts), the same as
 * `geolab audit --workspace`: the session's workspace's episodes, its baseline and last counts in
 * the workspace. Only the progress frames are the screen's own. Loaded with the screen, never by Home.
 */
import { join } from 'node:path';
import type { AuditJob } from '../../audit/job.js';
import { workspacePaths } from '../../store/workspace.js';
import type { AuditService } from '../services.js';
import type { WorkspaceSession } from '../workspace-session.js';

/** The workspace folder the screen's exports go to, one new file each. */
const EXPORT_DIR = 'audit-exports';

/** How often a running audit lets the screen draw its progress line. */
const PROGRESS_FRAME_MS = 100;

export function auditService(session: WorkspaceSession, dir: string): AuditService {
  const paths = workspacePaths(dir);
  // The last job, so that an accept updates Home's open count and an export writes it without a new run.
  let last: AuditJob | undefined;
  return {
    baselineFile: paths.auditBaseline,
    async run(onProgress) {
      const { auditJob } = await import('../../audit/job.js');
      let shown = performance.now();
      last = await auditJob({ readWorkspace: true, workspaceDir: dir, openWorkspace: session.open }, async ({ prompts }) => {
        const now = performance.now();
        if (now - shown < PROGRESS_FRAME_MS) return;
        shown = now;
        onProgress(prompts);
        // The audit reads synchronously: without a turn of the event loop no frame is drawn.
        await new Promise((resolve) => setImmediate(resolve));
      });
      return { summary: last.summary, findings: last.findings };
    },
    async accept(accepted, reason) {
      const ids = accepted.map((f) => f.id);
      if (last) {
        const { acceptFindings } = await import('../../audit/job.js');
        acceptFindings(last, ids, reason);
      } else {
        const { acceptInBaseline } = await import('../../audit/baseline.js');
        acceptInBaseline(paths.auditBaseline, [...new Set(ids)], reason);
      }
    },
    async export(format) {
      if (!last) throw new Error('no audit has run yet');
      const [{ jsonReport }, { geolabVersion, sarifReport }, { writeFileAtomic }] = await Promise.all([
        import('../../audit/report.js'),
        import('../../audit/report-sarif.js'),
        import('../../files.js'),
      ]);
      // The job's summary counts the findings accepted since the run as accepted.
      const { summary, findings, result, baseline } = last;
      const report = format === 'json' ? jsonReport(summary, findings) : sarifReport(findings, { version: geolabVersion(), lineOf: result.lineOf, baseline });
      const file = join(dir, EXPORT_DIR, `audit-${new Date().toISOString().replace(/[:.]/g, '-')}.${format}`);
      writeFileAtomic(file, JSON.stringify(report, null, 2) + '\n');
      return file;
    },
  };
}
