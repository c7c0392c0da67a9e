/** `npm run docs:commands`: writes docs/commands.md from the program's own definitions (src/cli/reference.ts). */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildProgram } from '../src/cli/main.js';
import { commandReference } from '../src/cli/reference.js';

const file = join(import.meta.dirname, '..', 'docs', 'commands.md');
writeFileSync(file, commandReference(buildProgram()));
console.log(`wrote ${file}`);
