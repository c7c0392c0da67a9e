/** The TUI's own error, in a module of its own so the CLI can catch it without loading Ink. */
import { EXIT, GeolabError } from '../core/errors.js';

/** The TUI was asked for without a terminal to draw on: the CLI prints plain text instead. */
export class NoTerminalError extends GeolabError {
  constructor(what: string) {
    super(`${what} needs an interactive terminal (stdin is not a TTY); run it from a terminal, or use the plain subcommands`, EXIT.usage);
  }
}
