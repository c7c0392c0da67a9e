/** exifr (about 50 ms to load) is required (src/vendor/commonjs.ts) only when an image of a prompt carries a metadata block. */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { auditPromptAsync } from '../../src/audit/detect.js';
import { viewJpeg } from './corpus.js';

const exifrLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('/node_modules/exifr/'));
import type { AuditPrompt, AuditTask } from '../../src/audit/types.js';

const task: AuditTask = { truth: { lat: 43.3209, lon: 21.8958 }, country: 'Republic of Serbia', identity: [{ kind: 'task_id', value: 'eval-00042' }] };

const prompt = (bytes: Buffer): AuditPrompt => ({
  source: 'test',
  promptId: 'p',
  task: { taskId: 'eval-00042' },
  messages: [{ author: 'harness', role: 'user', texts: ['The view.'], images: [{ ref: 'view.jpg', bytes }] }],
  agentPoints: [],
});

describe('exifr', () => {
  it('is not loaded for clean images, and is for one with EXIF', async () => {
    expect(await auditPromptAsync(prompt(await viewJpeg()), task)).toEqual([]);
    expect(exifrLoaded()).toBe(false);
    const tagged = await viewJpeg({ IFD0: { Make: 'Canon', Model: 'EOS 5D' } });
    const findings = await auditPromptAsync(prompt(tagged), task);
    expect(findings.map((f) => f.kind)).toEqual(['image_metadata']);
    expect(exifrLoaded()).toBe(true);
  });
});
