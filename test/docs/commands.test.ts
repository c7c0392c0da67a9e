/** docs/commands.md is the program's own reference: it fails here when a command or option changed without it. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main.js';
import { commandReference } from '../../src/cli/reference.js';

describe('docs/commands.md', () => {
  it('says what the commander definitions say (else: npm run docs:commands)', () => {
    const written = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'commands.md'), 'utf8');
    expect(written, 'docs/commands.md is out of date: run `npm run docs:commands`').toBe(commandReference(buildProgram()));
  });

  it('has a section per command, each option of each command listed', () => {
    const text = commandReference(buildProgram());
    expect(text).toContain('## geolab eval run\n');
    expect(text).toContain('## geolab splits build\n');
    expect(text).toMatch(/## geolab eval run\n[\s\S]*- `--models <file>`:/);
    expect(text).toContain('- `--json`: machine-readable output');
  });
});
