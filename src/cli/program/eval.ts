/** `geolab eval`: pass@k sweeps and their report. */
import { Option, type Command } from 'commander';
import { DEFAULT_IMAGE_SIZE_PX, DEFAULT_MAX_TURNS, DEFAULT_PROTOCOL, PROTOCOLS } from '../../agent/agent-settings.js';
import { integer, number, withGlobals } from '../options.js';

export function registerEvalCommands(program: Command): void {
  const evalCmd = program.command('eval').description('evaluation boards of pass@k sweeps');
  evalCmd
    .command('report')
    .description('per-arm board (model@prompt_version) with paired comparisons and integrity gates; exit 1 when an arm is flagged')
    .argument('[roots...]', 'run folders (<run>/episodes.jsonl, pass-<p>/shard-<i>/...) or episode files')
    .option('--run <id...>', "with --workspace: only these runs of the workspace")
    .option('--baseline <arm>', 'compare every arm with this one (model@prompt_version, or a model with one arm)')
    .option('--by <key>', 'add a breakdown: country or continent (Natural Earth)')
    .option('--success-km <km>', 'pass@k counts an attempt within this many km a success (default 25)', number('--success-km'))
    .option('--markdown', 'Markdown tables')
    .option('--json', 'JSON output')
    .addHelpText('after', '\n--workspace (the global option, with or without a directory) reports on the workspace\'s episodes instead of run folders.')
    .action(async (roots: string[], opts, cmd: Command) =>
      (await import('../commands/eval.js')).reportCommand(roots, { ...withGlobals(opts, cmd), fromWorkspace: cmd.optsWithGlobals().workspace !== undefined }),
    );
  evalCmd
    .command('run')
    .description("a resumable pass@k sweep of one or more models, in the harness's layout and the workspace; exit 3 naming an endpoint left with no replica (gone, refusing the key, or answering nothing usable)")
    .option('--models <file>', "the harness's model file: a JSON list of {name, provider, model, base_url, api_key_env, max_tokens, concurrency, extra_body, thinking}")
    .option('--model <name>', 'one model, as its endpoint serves it')
    .option('--base-url <urls>', 'its endpoint (replicas comma-separated)')
    .addOption(new Option('--provider <provider>', 'the API --model speaks').choices(['openai', 'anthropic']))
    .option('--api-key-env <VAR>', 'environment variable holding the API key of --model')
    .option('--max-tokens <n>', 'completion token cap of --model', integer('--max-tokens'))
    .option('--split <name>', 'split to play (default eval)')
    .option('--limit <n>', 'the first N tasks', integer('--limit'))
    .option('--indices <list>', 'task indices, e.g. 0,3,7-9')
    .option('--passes <n>', 'attempts per task; pass p is sample p (default 4)', integer('--passes'))
    .option('--concurrency <n>', "episodes in flight per model replica, unless the models file says (default 8)", integer('--concurrency'))
    .option('--max-turns <n>', 'turns before the forced guess', integer('--max-turns'), DEFAULT_MAX_TURNS)
    .addOption(new Option('--protocol <protocol>', 'how actions are asked for').choices(PROTOCOLS).default(DEFAULT_PROTOCOL))
    .addOption(new Option('--tools <set>', 'tools offered with --protocol tools').choices(['trained', 'all']).default('trained'))
    .option('--prompt-file <file>', "a prompt template with the harness's {max_turns} and {tools}")
    .option('--env <url...>', 'environment servers (repeatable or comma-separated; default: the embedded one)')
    .option('--out <dir>', 'output folder (default: <workspace>/sweeps/<run-id>)')
    .option('--run-id <id>', 'run id (default: the folder\'s previous sweep, else a new one)')
    .option('--shard <I/N|auto>', 'play shard I of N (0-based) in pass-<p>/shard-<I>/, for N machines splitting one sweep; auto: I and N from a Slurm array job or a Kubernetes Indexed Job (docs/sharding.md)')
    .option('--shards <n>', 'N for --shard auto under a Kubernetes Indexed Job (its completions)', integer('--shards'))
    .option('--retries <n>', 'retries of a model request (default 2)', integer('--retries'))
    .option('--retry-delay <s>', 'seconds before the first retry, doubling after', number('--retry-delay'))
    .option('--timeout <s>', 'seconds per model request attempt', number('--timeout'))
    .option('--max-reply-mb <n>', 'largest model reply read, in MiB (default 16): a larger one is a provider error', number('--max-reply-mb'))
    .option('--image-size <px>', 'side of the images sent to the model', integer('--image-size'), DEFAULT_IMAGE_SIZE_PX)
    .option('--panos <dir>', 'panorama cache of the embedded environment')
    .option('--json', 'print a JSON summary when done')
    .action(async (opts, cmd: Command) => (await import('../commands/eval-run.js')).evalRunCommand(withGlobals(opts, cmd)));
}
