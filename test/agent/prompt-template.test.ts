/** A user's prompt template (--prompt-file): the harness's placeholders, its version, its errors. */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fillTemplate, loadPromptTemplate } from '../../src/agent/protocols/template.js';
import { InputError } from '../../src/core/errors.js';
import { tempDir } from '../helpers/fixtures.js';

function templateFile(text: string | Buffer): string {
  const file = join(tempDir('geolab-template-'), 'prompt.txt');
  writeFileSync(file, text);
  return file;
}

describe('prompt templates', () => {
  it('fills {max_turns} and {tools} as str.format does, doubled braces made single', () => {
    const template = loadPromptTemplate(templateFile('# prompt_version: mine-1\n{{"action": "look"}} with {max_turns} turns; tools: {tools}\n'));
    expect(template.version).toBe('mine-1');
    expect(fillTemplate(template, { max_turns: 3, tools: 'look, guess' })).toBe('{"action": "look"} with 3 turns; tools: look, guess');
  });

  it('names an undeclared template by the sha256 of its bytes, and reads a BOM', () => {
    const bytes = Buffer.from('\uFEFFGuess where this is. {max_turns} turns left.', 'utf8');
    const template = loadPromptTemplate(templateFile(bytes));
    expect(template.version).toBe(`file:${createHash('sha256').update(bytes).digest('hex').slice(0, 12)}`);
    expect(template.text.startsWith('Guess')).toBe(true);
  });

  it.each([
    ['an unknown placeholder', 'ok\nYou have {turns} turns', 2, 'unknown placeholder {turns} at column 10'],
    ['a brace never closed', 'Reply {max_turns', 1, 'a "{" at column 7 is never closed'],
    ['a single closing brace', 'Reply }', 1, 'a single "}" at column 7'],
    ['a JSON example with single braces', '# prompt_version: x\n{"action": "guess"}', 2, 'unknown placeholder {"action": "guess"}'],
  ])('refuses %s with file:line and what was expected', (_what, text, line, message) => {
    const file = templateFile(text);
    let error: unknown;
    try {
      loadPromptTemplate(file);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).exitCode).toBe(2);
    expect((error as Error).message).toContain(`${file}:${line}: ${message}`);
    expect((error as Error).message).toContain('expected {max_turns} or {tools}, or {{ and }} for a literal brace');
  });

  it('refuses a missing file, a directory and an empty template', () => {
    const dir = tempDir('geolab-template-');
    expect(() => loadPromptTemplate(join(dir, 'nope.txt'))).toThrow(`${join(dir, 'nope.txt')}: cannot read prompt template: ENOENT`);
    expect(() => loadPromptTemplate(dir)).toThrow('not a regular file');
    expect(() => loadPromptTemplate(templateFile('# prompt_version: x\n\n'))).toThrow('the prompt template is empty');
    expect(() => loadPromptTemplate(templateFile('# prompt_version: two words\nhi'))).toThrow(':1: prompt_version "two words" is not a name');
  });
});
