/**
 * A fresh workspace's demo episodes audit clean: the views their messages name by hash were sent
 * to the model, so the demo ships them and the import stores them, and the audit checks them.
 */
import { describe, expect, it } from 'vitest';
import { geolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';

describe('the demo workspace', () => {
  it('audits clean, every image of its prompts checked', () => {
    const r = geolab(['audit', '--json', '--fail-on', 'low'], { home: tempDir() });
    expect(r.stderr).toBe('');
    const report = JSON.parse(r.stdout) as { summary: { prompts: number; images: number; findings: number }; findings: { evidence: string }[] };
    expect(report.findings.map((f) => f.evidence)).toEqual([]);
    expect(report.summary.prompts).toBeGreaterThan(0);
    expect(report.summary.images).toBeGreaterThan(0);
    expect(r.code).toBe(0);
  });
});
