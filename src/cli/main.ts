/**
 * Commander wiring only: every action loads its command module on demand, so a command that draws no
 * TUI never imports ink, React, SQLite or geography data it does not use.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { EXIT, GeolabError, UsageError } from '../core/errors.js';
import { onShortSecret, redact, shortSecretNotice } from '../core/secrets.js';
import { IMAGES_ENV, IMAGES_SETTINGS } from '../tui/images/native.js';
import { workspaceDir, workspaceError } from '../store/workspace.js';
import { withGlobals, type GlobalOptions } from './options.js';
import { registerAuditCommands } from './program/audit.js';
import { registerDataCommands } from './program/data.js';
import { registerEnvironmentCommands } from './program/environment.js';
import { registerEpisodeCommands, registerPlayCommands } from './program/episodes.js';
import { registerEvalCommands } from './program/eval.js';
import { registerTrainCommands } from './program/train.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
  .version;

export function buildProgram(): Command {
  const program = new Command('geolab')
    .description('Terminal workbench for the GeoGuesser reinforcement-learning environment')
    .version(VERSION, '-V, --version')
    .option('-w, --workspace [dir]', 'workspace directory (default: $GEOLAB_HOME, else the user data dir)')
    .option('--json', 'machine-readable output')
    .addOption(
      new Option('--images <mode>', `how the TUI draws images: native (kitty, iTerm2, WezTerm, Ghostty protocols), blocks (half-blocks), auto detects and keeps to blocks in tmux/screen (also $${IMAGES_ENV})`)
        .choices(IMAGES_SETTINGS),
    )
    // Every TUI entry (home, episodes show, play, agent) reads one setting, the one the flag leaves here.
    .hook('preAction', (command) => {
      const images = (command.opts() as GlobalOptions).images;
      if (images) process.env[IMAGES_ENV] = images;
    })
    .showHelpAfterError('(run with --help for usage)')
    // Set before the subcommands are added, which copy these settings: usage errors throw to run().
    .exitOverride()
    .configureOutput({ writeErr: (text) => process.stderr.write(text) })
    .action(async (opts: GlobalOptions, cmd: Command) => {
      // Commander hands a word that names no command to this action as an excess argument.
      const [word] = cmd.args;
      if (word !== undefined) {
        const names = program.commands.map((c) => c.name()).join(', ');
        throw new UsageError(`unknown command "${word}"; the commands are ${names} (\`geolab --help\` for more)`);
      }
      return (await import('./commands/home.js')).home(withGlobals(opts, cmd));
    });

  // One module per command group (src/cli/program/), in the order `geolab --help` lists them.
  for (const register of [registerEnvironmentCommands, registerDataCommands, registerEpisodeCommands, registerAuditCommands, registerPlayCommands, registerEvalCommands, registerTrainCommands]) {
    register(program);
  }

  program.allowExcessArguments(true);
  return program;
}

/** Runs the CLI and returns the exit code (docs/architecture.md); errors are mapped to codes here only. */
export async function run(argv: string[]): Promise<number> {
  // A reader that stops early (`| head`) is not an error: the rest of the output has nowhere to go.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(process.exitCode ?? EXIT.ok);
  });
  // A key too short to scrub from free text is said once, whichever command read it.
  onShortSecret((source) => process.stderr.write(`geolab: ${shortSecretNotice(source)}\n`));
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and --version exit 0; help shown for a missing subcommand and every parse error is usage.
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    const expected = err instanceof GeolabError ? err : machineError(err, withGlobals({}, program).workspace);
    if (expected) {
      process.stderr.write(`geolab: ${expected.message}\n`);
      return expected.exitCode;
    }
    process.stderr.write(`geolab: unexpected error: ${redact((err as Error).stack ?? String(err))}\n`);
    return 1;
  }
}

/** File-system refusals a user can act on (a read-only disk, a file where a folder must be). */
const FILE_SYSTEM_CODES = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EISDIR', 'ENOSPC', 'EDQUOT', 'ENAMETOOLONG', 'ELOOP']);

/**
 * Errors of the machine rather than bugs: SQLite refusing the workspace database (see
 * workspaceError) and the file system refusing a path (exit 2).
 */
function machineError(err: unknown, workspaceOption: string | undefined): GeolabError | undefined {
  const fromWorkspace = workspaceError(err, workspaceDir(workspaceOption));
  if (fromWorkspace) return fromWorkspace;
  const { code, message, syscall, path } = (err ?? {}) as Record<string, unknown>;
  if (typeof code !== 'string' || !FILE_SYSTEM_CODES.has(code) || typeof syscall !== 'string') return undefined;
  // Node's message reads "EACCES: permission denied, open '/x'": keep the part before the syscall.
  const reason = String(message).split(', ')[0] ?? code;
  return new GeolabError(`cannot ${syscall} ${typeof path === 'string' ? path : ''}: ${reason}`, EXIT.usage);
}
