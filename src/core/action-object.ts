/**
 * The action object in a model's reply text (the JSON-action protocol, docs/protocol.md): what the
 * agent reads its action from and the audit reads the agent's own points from. Pure.
 */

/** The action object of a reply: the last fenced ```json block that holds one, else the last `{...}` that does. */
export function extractActionObject(reply: string): Record<string, unknown> | null {
  const fenced = [...reply.matchAll(/```json\s*([\s\S]*?)```/gi)].map((m) => m[1] ?? '');
  for (const block of fenced.reverse()) {
    const object = parseObject(block.trim());
    if (object && 'action' in object) return object;
  }
  for (const candidate of balancedObjects(reply).reverse()) {
    if (!candidate.includes('action')) continue;
    const object = parseObject(candidate);
    if (object && 'action' in object) return object;
  }
  return null;
}

/** JSON, forgiving the trailing commas models often write. */
function parseObject(text: string): Record<string, unknown> | null {
  for (const attempt of [text, text.replace(/,\s*([}\]])/g, '$1')]) {
    try {
      const value: unknown = JSON.parse(attempt);
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // not this attempt
    }
  }
  return null;
}

/**
 * Every outermost balanced `{...}` in reading order, in one pass. Quotes count only inside braces,
 * so an apostrophe or a stray quote in the prose cannot swallow the object after it.
 */
export function balancedObjects(text: string): string[] {
  const objects: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"' && depth > 0) inString = true;
    else if (ch === '{') {
      if (depth === 0) start = i;
      depth++;
    } else if (ch === '}' && depth > 0) {
      depth--;
      if (depth === 0) objects.push(text.slice(start, i + 1));
    }
  }
  return objects;
}
