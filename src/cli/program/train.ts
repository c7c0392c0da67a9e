/** `geolab train`: local GRPO training runs. */
import type { Command } from 'commander';
import { integer, number, withGlobals } from '../options.js';

export function registerTrainCommands(program: Command): void {
  const train = program.command('train').description('local GRPO training: write a config, pre-flight, launch, watch, stop, resume, serve the adapter');
  train
    .command('init')
    .description("write a run's config.json: the recipe, your task set and panorama cache; a wizard on a terminal, flags otherwise")
    .option('--out <dir>', "the run's folder (default: the workspace's train/NAME/)")
    .option('--name <name>', 'run name, also the served LoRA module name (default: the first free runN)')
    .option('--model <id>', 'base model (default: the recipe\'s Qwen/Qwen3.5-4B)')
    .option('--split <name>', 'task set to train on (default: train)')
    .option('--tasks <file>', 'serve this task file as the split instead of a workspace task set')
    .option('--panos <dir>', "panorama cache of the local environment (default: the task set's)")
    .option('--max-steps <n>', 'optimizer steps (default 250: the published run plateaued by 200-250)', integer('--max-steps'))
    .option('--env-url <url>', 'train against this remote environment server instead of a local one')
    .option('--gpus <n>', 'GPUs to train on (default 1; more launch through accelerate)', integer('--gpus'))
    .option('--python <path>', "the trainer's interpreter, a venv's python with its requirements (default python3)")
    .option('--secrets <names>', 'names (never values) of environment variables the run needs, comma-separated, e.g. HF_TOKEN')
    .option('--yes', 'ask nothing, even on a terminal: flags and the recipe')
    .option('--force', 'overwrite an existing config.json')
    .option('--json', 'the written config and derived numbers as JSON')
    .action(async (opts, cmd: Command) => (await import('../commands/train.js')).initCommand(withGlobals(opts, cmd)));
  train
    .command('preflight')
    .description('check GPU, Python packages, disk, environment, panoramas and secrets before a run; exit 1 on any fail')
    .argument('<config>', "the run's config.json")
    .option('--json', 'the report as JSON')
    .addHelpText('after', '\nAn environment that cannot be reached is a failed check (exit 1), like any other.')
    .action(async (file: string, opts, cmd: Command) => (await import('../commands/train.js')).preflightCommand(file, withGlobals(opts, cmd)));
  train
    .command('serve')
    .description("print (with --exec run) the vLLM command of the config's Python environment serving a run's adapter in its trained mode, and the `eval run` line scoring adapter and base alike (writes its models file)")
    .argument('<run>', 'a run folder (holding config.json), its config file, or a launched run by name')
    .option('--checkpoint <step>', 'serve checkpoint-STEP (default: the final adapter, else the last checkpoint)', integer('--checkpoint'))
    .option('--port <port>', 'port of the vLLM server', integer('--port'), 8000)
    .option('--exec', 'run the command in the foreground (Ctrl-C stops it)')
    .option('--json', 'the plan as JSON')
    .action(async (run: string, opts, cmd: Command) => (await import('../commands/train.js')).serveCommand(run, withGlobals(opts, cmd)));
  train
    .command('launch')
    .description('pre-flight, then the environment server (env.mode local) and the trainer, each in its own process group; writes <output_dir>/launch.json')
    .argument('<config>', 'training config JSON')
    .option('--dry-run', 'print what would run; start and write nothing')
    .option('--no-preflight', 'skip the pre-flight checks (after `geolab train preflight`)')
    .option('--trainer <script>', "the trainer script (default: geolab's)")
    .option('--json', 'print the launch record')
    .action(async (config: string, opts, cmd: Command) => (await import('../commands/train-run.js')).launchCommand(config, withGlobals(opts, cmd)));
  train
    .command('smoke')
    .description('two optimizer steps of the real stack from one generation batch, a checkpoint, and one reply from the served adapter, each stage printed as it passes (about ten minutes on an A100); exit 1 naming the stage and its log')
    .argument('<config>', "the run's config.json (never written: the smoke run's own goes to <output_dir>/smoke/)")
    .option('--model <id>', "another base model than the config's (an id or a local folder)")
    .option('--port <port>', 'port of the served adapter (default: a free one)', integer('--port'))
    .option('--trainer <script>', "the trainer script (default: geolab's)")
    .option('--json', 'one JSON object per stage')
    .action(async (config: string, opts, cmd: Command) => (await import('../commands/train-smoke.js')).smokeCommand(config, withGlobals(opts, cmd)));
  train
    .command('watch')
    .description('the Train screen on a terminal; otherwise a progress line per change until the run ends (exit 1 if it crashed)')
    .argument('<run>', "run name, or the run's output directory")
    .option('--once', 'print one snapshot: phase, step, ETA, last metrics, warnings')
    .option('--interval <s>', 'seconds between looks without a terminal', number('--interval'), 2)
    .option('--json', 'JSON snapshots')
    .action(async (run: string, opts, cmd: Command) => (await import('../commands/train-run.js')).watchCommand(run, withGlobals(opts, cmd)));
  train
    .command('stop')
    .description('SIGINT to the trainer (it ends the step, saves a checkpoint and exits), SIGTERM after the grace period; stops the environment server too')
    .argument('<run>', "run name, or the run's output directory")
    .option('--grace <s>', 'seconds to wait for the checkpoint before SIGTERM (default 600: a step takes minutes)', number('--grace'))
    .option('--json', 'JSON output')
    .action(async (run: string, opts, cmd: Command) => (await import('../commands/train-run.js')).stopCommand(run, withGlobals(opts, cmd)));
  train
    .command('resume')
    .description('launch a stopped or crashed run again from its last checkpoint-N')
    .argument('<run>', "run name, or the run's output directory")
    .option('--no-preflight', 'skip the pre-flight checks')
    .option('--trainer <script>', 'the trainer script (default: the one it was launched with)')
    .option('--json', 'print the launch record')
    .action(async (run: string, opts, cmd: Command) => (await import('../commands/train-run.js')).resumeCommand(run, withGlobals(opts, cmd)));
  // Only the program itself: the subcommands copied the setting when they were added, and keep refusing.
}
