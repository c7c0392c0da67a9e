/** The server's defaults, in a module with no imports so the CLI can show them without loading the server. */
/** OpenEnv's usual port. */
export const DEFAULT_PORT = 8000;
/** Concurrent sessions before CAPACITY_REACHED (docs/protocol.md: 64; training needs at least 8). */
export const DEFAULT_MAX_SESSIONS = 64;
