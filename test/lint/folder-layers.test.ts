/**
 * The folder-layers lint rule (docs/architecture.md, Layers): an import from a lower layer or the
 * same folder passes; one from beside or above, static or dynamic or re-exported, is refused; a
 * folder in no layer is named.
 */
import { join } from 'node:path';
import { RuleTester } from 'eslint';
import { afterAll, describe, it } from 'vitest';
// @ts-expect-error: a plain JavaScript module without types
import { folderLayers } from '../../eslint/folder-layers.js';

// RuleTester runs its cases through the test framework's hooks, which vitest does not make global.
Object.assign(RuleTester, { afterAll, describe, it });

const root = join(import.meta.dirname, '..', '..');
const at = (file: string) => join(root, 'src', file);
const tester = new RuleTester({ languageOptions: { ecmaVersion: 2024, sourceType: 'module' } });

tester.run('folder-layers', folderLayers, {
  valid: [
    { filename: at('eval/report.ts'), code: "import { x } from '../core/stats.js';" },
    { filename: at('eval/report.ts'), code: "import { y } from './compare.js';" },
    { filename: at('tui/app.tsx'), code: "const m = import('../eval/report.js');" },
    { filename: at('cli/main.ts'), code: "export { z } from '../tui/entry.js';" },
    { filename: at('core/values.ts'), code: "import { z } from '../vendor/zod.js';" },
    { filename: at('store/db.ts'), code: "import { ensureWritableDirectory } from '../files.js';" },
    { filename: at('core/values.ts'), code: "import { readFileSync } from 'node:fs';" },
    { filename: join(root, 'test', 'core', 'a.test.ts'), code: "import { b } from '../../src/tui/format.js';" },
  ],
  invalid: [
    { filename: at('eval/compare.ts'), code: "import { formatKm } from '../tui/format.js';", errors: [{ messageId: 'upward' }] },
    { filename: at('audit/detect.ts'), code: "import { toNumber } from '../agent/protocols/common.js';", errors: [{ messageId: 'upward' }] },
    { filename: at('splits/build.ts'), code: "import { audit } from '../audit/run.js';", errors: [{ messageId: 'upward' }] },
    { filename: at('core/values.ts'), code: "const m = import('../store/db.js');", errors: [{ messageId: 'upward' }] },
    { filename: at('store/index.ts'), code: "export * from '../demo/tasks.js';", errors: [{ messageId: 'upward' }] },
    { filename: at('files.ts'), code: "import { geo } from './geo/index.js';", errors: [{ messageId: 'upward' }] },
    { filename: at('core/values.ts'), code: "import { x } from '../plugins/x.js';", errors: [{ messageId: 'unknown' }] },
  ],
});
