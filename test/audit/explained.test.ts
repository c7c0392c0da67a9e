/**
 * Mentions the agent's own points explain are no findings, but the audit says which point explains
 * each ("the agent's point 44.8176, 20.4569 is in Republic of Serbia"), in the core and in the report.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditPrompt } from '../../src/audit/detect.js';
import type { Explanation } from '../../src/audit/types.js';
import { geolab } from '../helpers/cli.js';
import { tempDir } from '../helpers/fixtures.js';
import { auditTask, BELGRADE, harness, pinStep, promptOf, task } from './corpus.js';

describe('explained mentions', () => {
  it('names the agent point that explains a country, a town and its own coordinates', () => {
    const notes: Explanation[] = [];
    const nearby = { lat: 43.37, lon: 21.9 };
    const messages = [...pinStep(1, BELGRADE, 8), ...pinStep(2, nearby, 7), harness('Pin 2 at 43.37, 21.9 is in Serbia.')];
    const findings = auditPrompt(promptOf(messages), auditTask, { onExplained: (e) => notes.push(e) });
    expect(findings).toEqual([]);
    const said = notes.map((n) => `${n.kind} ${n.text}: ${n.evidence}`);
    // Only the point the message answers (it echoes it) explains the country it names.
    expect(said).toContain("country Serbia: the agent's point 43.37, 21.9 is in Republic of Serbia: explained");
    expect(said).toContain("coordinates 43.37, 21.9: the agent's own point 43.37, 21.9 (within 1 km): explained");
    const note = notes.find((n) => n.kind === 'country' && n.message === messages.length - 1) as Explanation;
    expect(note).toMatchObject({ source: 'corpus', prompt_id: 'p', text: 'Serbia' });
    expect(note.context).toContain('is in Serbia');
  });

  it('the same mention without the pin is a finding, and nothing is explained', () => {
    const notes: Explanation[] = [];
    const findings = auditPrompt(promptOf([harness('You are somewhere in Serbia.')]), auditTask, { onExplained: (e) => notes.push(e) });
    expect(findings.map((f) => f.kind)).toEqual(['country']);
    expect(notes).toEqual([]);
  });

  it('the report counts them and lists the first with their evidence', () => {
    const dir = tempDir();
    const tasks = join(dir, 'eval.jsonl');
    writeFileSync(tasks, JSON.stringify({ ...task, task_index: 0 }) + '\n');
    const prompts = join(dir, 'prompts.jsonl');
    const pin = { id: 'c1', type: 'function', function: { name: 'pin', arguments: JSON.stringify(BELGRADE) } };
    const line = {
      id: 'p1',
      task_id: task.task_id,
      messages: [
        { role: 'assistant', content: '', tool_calls: [pin] },
        { role: 'tool', tool_call_id: 'c1', content: 'Pin 1 is in Serbia. 8 tool calls left.' },
      ],
    };
    writeFileSync(prompts, JSON.stringify(line) + '\n');
    const json = geolab(['audit', '--prompts', prompts, '--tasks', tasks, '--json'], { home: join(dir, 'home') });
    expect(json.stderr).toBe('');
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as { summary: { explained: { mentions: number; prompts: number; notes: Explanation[] } }; findings: unknown[] };
    expect(report.findings).toEqual([]);
    expect(report.summary.explained).toMatchObject({ mentions: 1, prompts: 1 });
    expect(report.summary.explained.notes[0]).toMatchObject({ kind: 'country', prompt_id: 'p1', text: 'Serbia' });
    const text = geolab(['audit', '--prompts', prompts, '--tasks', tasks], { home: join(dir, 'home') });
    expect(text.stdout).toContain("1 mention(s) in 1 prompt(s) explained by the agent's own points");
  });
});
