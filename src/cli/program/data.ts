/** `geolab tasks`, `splits`, `config` and `panos`: the task files, their splits and panoramas. */
import type { Command } from 'commander';
import { integer, number, withGlobals } from '../options.js';

export function registerDataCommands(program: Command): void {
  const tasks = program.command('tasks').description('task files: validate, inspect, import');
  tasks
    .command('validate')
    .description('check a task file: errors make it unusable (exit 1), warnings are worth a look')
    .argument('<file>', 'task JSONL file')
    .option('--panos <dir>', 'panorama cache directory: report frames with no <image_id>.jpg or bytes unlike meta.sha256')
    .option('--json', 'JSON output')
    .action(async (file: string, opts, cmd: Command) =>
      (await import('../commands/tasks.js')).validateCommand(file, withGlobals(opts, cmd)),
    );
  tasks
    .command('stats')
    .description('tasks, frames, countries, contributors and capture months of a task file')
    .argument('<file>', 'task JSONL file')
    .option('--json', 'JSON output')
    .action(async (file: string, opts, cmd: Command) =>
      (await import('../commands/tasks.js')).statsCommand(file, withGlobals(opts, cmd)),
    );
  tasks
    .command('import')
    .description('load a task file into the workspace as a named task set (transactional, idempotent)')
    .argument('<file>', 'task JSONL file')
    .requiredOption('--name <name>', 'task set name')
    .option('--replace', 'overwrite a task set of that name holding another file')
    .option('--panos <dir>', 'the panorama cache of this task set')
    .option('--json', 'JSON output')
    .action(async (file: string, opts, cmd: Command) =>
      (await import('../commands/tasks.js')).importCommand(file, withGlobals(opts, cmd)),
    );
  const splits = program.command('splits').description('train/eval splits by country: build leak-proof ones, check any');
  splits
    .command('build')
    .description('eval by country caps, train kept apart by sequence, buffer and (optionally) contributor; writes DIR and imports NAME-eval/NAME-train')
    .argument('<pool>', 'pool task JSONL file')
    .requiredOption('--out-dir <dir>', 'where eval.jsonl, train.jsonl and manifest.json go')
    .option('--eval <n>', 'eval tasks (default 200)', integer('--eval'))
    .option('--eval-per-country <n>', 'eval tasks per country at most (default 4)', integer('--eval-per-country'))
    .option('--buffer-km <km>', 'least distance between a train and an eval start point (default 1)', number('--buffer-km'))
    .option('--countries <list>', 'only these countries (names, aliases or ISO codes, comma-separated)')
    .option('--exclude-countries <list>', 'all but these countries')
    .option('--train-per-country <n>', 'train tasks per country at most', integer('--train-per-country'))
    .option('--contributor-exclusive', 'no contributor in both splits')
    .option('--require-offline-ready', 'refuse unless every eval task is meta.offline_ready')
    .option('--seed <n>', 'seed of the tiebreak (default 0)', integer('--seed'))
    .option('--name <name>', 'task set names NAME-eval / NAME-train (default: the out dir\'s name)')
    .option('--interactive', 'choose countries, caps, buffer and exclusivity on a terminal, preview, then confirm')
    .option('--replace', 'replace split files in the out dir and task sets NAME-eval/NAME-train (their old versions stay readable)')
    .option('--json', 'print the manifest')
    .action(async (pool: string, opts, cmd: Command) => (await import('../commands/splits.js')).buildCommand(pool, withGlobals(opts, cmd)));
  splits
    .command('check')
    .description('contamination between a train and an eval file (exit 1 when found), balance and leak potential')
    .requiredOption('--train <file>', 'train task JSONL file')
    .requiredOption('--eval <file>', 'eval task JSONL file')
    .option('--buffer-km <km>', 'least distance between a train and an eval start point (default 1)', number('--buffer-km'))
    .option('--contributor-exclusive', 'a contributor in both splits is contamination')
    .option('--json', 'JSON output')
    .action(async (opts, cmd: Command) => (await import('../commands/splits.js')).checkCommand(withGlobals(opts, cmd)));
  const config = program.command('config').description('workspace settings (panos: the default panorama cache)');
  config
    .command('set')
    .argument('<key>', 'setting name')
    .argument('<value>', 'value')
    .option('--json', 'JSON output')
    .action(async (key: string, value: string, opts, cmd: Command) => (await import('../commands/config.js')).setCommand(key, value, withGlobals(opts, cmd)));
  config
    .command('get')
    .description('print a setting (exit 1 when not set)')
    .argument('<key>', 'setting name')
    .option('--json', 'JSON output')
    .action(async (key: string, opts, cmd: Command) => (await import('../commands/config.js')).getCommand(key, withGlobals(opts, cmd)));
  config
    .command('unset')
    .argument('<key>', 'setting name')
    .option('--json', 'JSON output')
    .action(async (key: string, opts, cmd: Command) => (await import('../commands/config.js')).unsetCommand(key, withGlobals(opts, cmd)));
  config
    .command('list')
    .option('--json', 'JSON output')
    .action(async (opts, cmd: Command) => (await import('../commands/config.js')).listCommand(withGlobals(opts, cmd)));

  const panos = program.command('panos').description('panorama caches');
  panos
    .command('fetch')
    .description('download every frame of a task file or task set from Mapillary (MAPILLARY_ACCESS_TOKEN); resumes')
    .argument('<tasks>', 'task JSONL file or workspace task set name')
    .option('--panos <dir>', 'cache directory (default: the task set\'s, else `config get panos`, else the workspace\'s)')
    .option('--concurrency <n>', 'downloads at a time', integer('--concurrency'), 8)
    .option('--json', 'JSON output')
    .action(async (tasks: string, opts, cmd: Command) => (await import('../commands/panos.js')).fetchCommand(tasks, withGlobals(opts, cmd)));
}
