/**
 * src/env/action-json-schemas.ts holds the JSON Schemas zod makes of the action schemas
 * (src/env/action-schemas.ts), so that serving them loads no zod: it fails here when the schemas
 * changed without it, and what is served from it (/schema, the tool specs of the tools protocol,
 * MCP's tools/list) is, byte for byte, what zod's own JSON Schemas give.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { actionJsonSchemas, actionJsonSchemasModule } from '../../src/env/action-schemas.js';

const MODULE = '../../src/env/action-json-schemas.js';

/** What is served, from the checked-in module or (with `fromZod`) from zod's JSON Schemas of the moment. */
async function served(fromZod: boolean): Promise<string[]> {
  vi.resetModules();
  if (fromZod) {
    const { ops } = actionJsonSchemas();
    vi.doMock(MODULE, () => ({ OP_JSON_SCHEMAS: ops }));
  }
  const { actionJsonSchema } = await import('../../src/env/actions.js');
  const { toolSpecs } = await import('../../src/agent/protocols/tools.js');
  const { mcpTools } = await import('../../src/env/mcp.js');
  return [actionJsonSchema(), toolSpecs('trained'), toolSpecs('all'), mcpTools(3)].map((value) => JSON.stringify(value));
}

afterEach(() => {
  vi.doUnmock(MODULE);
  vi.resetModules();
});

describe('src/env/action-json-schemas.ts', () => {
  it('holds what zod makes of the action schemas (else: npm run schemas:actions)', () => {
    const written = readFileSync(join(import.meta.dirname, '..', '..', 'src', 'env', 'action-json-schemas.ts'), 'utf8');
    expect(written, 'src/env/action-json-schemas.ts is out of date: run `npm run schemas:actions`').toBe(actionJsonSchemasModule());
  });

  it('serves /schema, the tool specs and the MCP tools exactly as zod would', async () => {
    const ours = await served(false);
    const zod = await served(true);
    expect(ours).toEqual(zod);
    // /schema is put together from the ops' schemas: the whole union as zod writes it.
    expect(ours[0]).toBe(JSON.stringify(actionJsonSchemas().action));
    expect(ours.every((json) => json.includes('"minimum"') || json.includes('"maximum"'))).toBe(true);
  });
});
