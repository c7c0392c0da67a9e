/** `geolab audit` and its baseline: the identity-leak audit. */
import { Option, type Command } from 'commander';
import { keepYoungGenerationSmall } from '../../heap.js';
import { number, withGlobals } from '../options.js';

export function registerAuditCommands(program: Command): void {
  const audit = auditSourceOptions(
    program.command('audit').description('audit prompts for task-identity leaks (the workspace\'s episodes when no source is named); exit 1 on new findings'),
  )
    .option('--baseline <file>', "accepted findings (default: the workspace's audit-baseline.json when its episodes are audited, else ./geolab-audit-baseline.json); a file that does not exist yet accepts nothing")
    .option('--update', 'accept every current finding into the baseline (written atomically)')
    .addOption(new Option('--fail-on <severity>', 'exit 1 on a new finding of this severity or above').choices(['high', 'medium', 'low']).default('high'))
    .option('--skip-invalid', 'skip bad lines of prompt files, listing each with file:line (the run then exits 1)')
    .option('--json', 'JSON output')
    .option('--sarif', 'SARIF 2.1.0 output, for code scanning')
    .action(async (opts, cmd: Command) => {
      // A batch job: set before its modules load, which would grow the young generation (src/heap.ts).
      keepYoungGenerationSmall();
      return (await import('../commands/audit.js')).auditCommand(withGlobals(opts, cmd));
    });
  // `add` runs the audit of the sources it is given (as `geolab audit` takes them) to check the id;
  // all three use the baseline file that audit would.
  const baseline = audit.command('baseline').description('the baseline of accepted findings');
  auditSourceOptions(baseline.command('add'))
    .description('accept one current finding of the audit of the sources named, with the reason (who and when are recorded); an id no finding has is refused with the closest')
    .argument('<id>', "the finding's id")
    .requiredOption('--reason <text>', 'why it is acceptable')
    .option('--baseline <file>', 'baseline file (default: as the audit\'s)')
    .action(async (id: string, opts: { reason: string }, cmd: Command) => (await import('../commands/audit.js')).baselineAddCommand(id, withGlobals(opts, cmd)));
  baseline
    .command('list')
    .description('the accepted findings: id, when, who and why')
    .option('--baseline <file>', 'baseline file (default: as the audit\'s)')
    .option('--json', 'JSON output')
    .action(async (opts, cmd: Command) => (await import('../commands/audit.js')).baselineListCommand(withGlobals(opts, cmd)));
  baseline
    .command('remove')
    .description('stop accepting one finding; an id the baseline lacks is refused with the closest')
    .argument('<id>', "the finding's id")
    .option('--baseline <file>', 'baseline file (default: as the audit\'s)')
    .action(async (id: string, opts, cmd: Command) => (await import('../commands/audit.js')).baselineRemoveCommand(id, withGlobals(opts, cmd)));
}

/** What `geolab audit` reads, on the audit and on `audit baseline add` (which runs it to check an id). */
function auditSourceOptions(command: Command): Command {
  return command
    .option('--episodes <path...>', 'schema-v2 episode files, or run folders holding episodes.jsonl files')
    .option('--prompts <file...>', 'prompt files: JSONL {"id", "task_id" | "split"+"index", "messages"}')
    .option('--traces <file...>', "the trainer's traces/rollouts.jsonl")
    .option('--completions <file...>', "TRL's completions/completions_*.parquet")
    .option('--tasks <[SPLIT=]FILE...>', "task files holding the truth (default: the workspace's splits); a bare FILE's split is its name without .jsonl")
    .option('--radius-km <km>', 'coordinates nearer the truth than this are a leak', number('--radius-km'), 25);
}
