/**
 * JSON from clients, parsed with a nesting limit. Deeply nested input is refused before anything
 * walks it: JSON.stringify, validators and error messages recurse, and a few hundred kilobytes of
 * brackets would otherwise overflow the stack somewhere far from the socket (docs/reliability.md).
 */
import { EnvError } from './types.js';

/** Far deeper than any action, reset or JSON-RPC message nests (they need about five levels). */
export const MAX_JSON_DEPTH = 64;

/** Whether JSON text nests objects and arrays deeper than `limit`: one pass, no recursion, no parse. */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash escapes the next character, a quote included
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/**
 * Parses a client's message or body (`what` names it in errors): VALIDATION_ERROR when it nests
 * deeper than MAX_JSON_DEPTH, INVALID_JSON when it does not parse.
 */
export function parseClientJson(text: string, what: string): unknown {
  if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
    throw new EnvError('VALIDATION_ERROR', `${what} nests arrays or objects deeper than ${MAX_JSON_DEPTH} levels`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new EnvError('INVALID_JSON', `${what} is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
}
