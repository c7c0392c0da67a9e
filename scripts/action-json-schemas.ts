/** `npm run schemas:actions`: writes src/env/action-json-schemas.ts from the zod schemas of the actions (src/env/action-schemas.ts). */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { actionJsonSchemasModule } from '../src/env/action-schemas.js';

const file = join(import.meta.dirname, '..', 'src', 'env', 'action-json-schemas.ts');
writeFileSync(file, actionJsonSchemasModule());
console.log(`wrote ${file}`);
