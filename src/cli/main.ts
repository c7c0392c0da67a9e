/**
 * Commander wiring only: every action loads its command module on demand, so a command that draws no
 * TUI never imports ink, React, SQLite or geography data it does not use.
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { DEFAULT_IMAGE_SIZE_PX, DEFAULT_MAX_TURNS, DEFAULT_PROTOCOL, PROTOCOLS } from '../agent/agent-settings.js';
import { EXIT, GeolabError, UsageError } from '../core/errors.js';
import { DEFAULT_ENGINE_CONFIG } from '../env/engine-config.js';
import { DEFAULT_MAX_SESSIONS, DEFAULT_PORT } from '../env/server/defaults.js';
import { onShortSecret, redact, shortSecretNotice } from '../core/secrets.js';
import { IMAGES_ENV, IMAGES_SETTINGS } from '../tui/images/native.js';
import { workspaceDir, workspaceError } from '../store/workspace.js';

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

  const geo = program.command('geo').description('offline geography');
  geo
    .command('locate')
    .description('country, subregion, continent and nearest major city of a point; `-` reads "lat,lon" lines from stdin')
    .argument('<lat|->', 'latitude, or - to read lat,lon lines from stdin')
    .argument('[lon]', 'longitude')
    .option('--json', 'one JSON object per point')
    .action(async (lat: string, lon: string | undefined, opts: { json?: boolean }, cmd: Command) =>
      (await import('./commands/geo.js')).locateCommand(lat, lon, withGlobals(opts, cmd)),
    );

  program
    .command('score')
    .description('score a guess distance on a reward curve')
    .option('--distance-km <km>', 'great-circle distance of the guess', number('--distance-km'))
    .option('--cost <cost>', 'action cost spent in the episode', number('--cost'), 0)
    .addOption(new Option('--curve <curve>', 'reward curve').choices(['game', 'mixture', 'reference']).default('game'))
    // No default here: the command tells a chosen mode from none, which the reference curve refuses.
    .addOption(
      new Option('--mode <mode>', 'how cost is charged on the game and mixture curves (default: subtract)').choices(['subtract', 'multiply']),
    )
    .option('--no-guess', 'score an episode that ended without a usable guess')
    .option('--json', 'JSON output')
    .action(async (opts, cmd: Command) => (await import('./commands/score.js')).scoreCommand(withGlobals(opts, cmd)));

  const env = program.command('env').description('the embedded GeoGuesser environment');
  env
    .command('serve')
    .description('serve the environment over HTTP and WebSocket (OpenEnv protocol); the workspace\'s splits by default')
    .option('--tasks <SPLIT=FILE...>', 'serve task files as splits, e.g. --tasks train=a.jsonl eval=b.jsonl')
    .option('--panos <dir>', 'panorama cache directory (default: the workspace\'s panos/)')
    .option('--host <host>', 'interface to bind', '127.0.0.1')
    .option('--port <port>', 'port (0 picks a free one)', integer('--port'), DEFAULT_PORT)
    .option('--max-sessions <n>', 'concurrent sessions before CAPACITY_REACHED', integer('--max-sessions'), DEFAULT_MAX_SESSIONS)
    .option('--max-steps <n>', 'action budget per episode', integer('--max-steps'), DEFAULT_ENGINE_CONFIG.maxSteps)
    .option('--view-size <px>', 'side of the square view images', integer('--view-size'), DEFAULT_ENGINE_CONFIG.viewSizePx)
    .addOption(new Option('--curve <curve>', 'reward curve').choices(['game', 'mixture']).default(DEFAULT_ENGINE_CONFIG.curve))
    .addOption(new Option('--mode <mode>', 'how cost is charged').choices(['subtract', 'multiply']).default(DEFAULT_ENGINE_CONFIG.mode))
    .option('--show-identity', 'put task identity in per-turn metadata (never for training or eval)')
    .option('--idle-timeout <s>', 'end sessions idle this many seconds (0: never)', number('--idle-timeout'), 600)
    .option('--workers <n>', 'render worker threads (default: one per core)', integer('--workers'))
    .option('--fetch', 'fetch missing panoramas from Mapillary (needs MAPILLARY_ACCESS_TOKEN)')
    .option('--json', 'print the listening address as JSON')
    .action(async (opts, cmd: Command) => (await import('./commands/env.js')).serveCommand(withGlobals(opts, cmd)));

  const tasks = program.command('tasks').description('task files: validate, inspect, import');
  tasks
    .command('validate')
    .description('check a task file: errors make it unusable (exit 1), warnings are worth a look')
    .argument('<file>', 'task JSONL file')
    .option('--panos <dir>', 'panorama cache directory: report frames with no <image_id>.jpg or bytes unlike meta.sha256')
    .option('--json', 'JSON output')
    .action(async (file: string, opts, cmd: Command) =>
      (await import('./commands/tasks.js')).validateCommand(file, withGlobals(opts, cmd)),
    );
  tasks
    .command('stats')
    .description('tasks, frames, countries, contributors and capture months of a task file')
    .argument('<file>', 'task JSONL file')
    .option('--json', 'JSON output')
    .action(async (file: string, opts, cmd: Command) =>
      (await import('./commands/tasks.js')).statsCommand(file, withGlobals(opts, cmd)),
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
      (await import('./commands/tasks.js')).importCommand(file, withGlobals(opts, cmd)),
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
    .action(async (pool: string, opts, cmd: Command) => (await import('./commands/splits.js')).buildCommand(pool, withGlobals(opts, cmd)));
  splits
    .command('check')
    .description('contamination between a train and an eval file (exit 1 when found), balance and leak potential')
    .requiredOption('--train <file>', 'train task JSONL file')
    .requiredOption('--eval <file>', 'eval task JSONL file')
    .option('--buffer-km <km>', 'least distance between a train and an eval start point (default 1)', number('--buffer-km'))
    .option('--contributor-exclusive', 'a contributor in both splits is contamination')
    .option('--json', 'JSON output')
    .action(async (opts, cmd: Command) => (await import('./commands/splits.js')).checkCommand(withGlobals(opts, cmd)));
  const config = program.command('config').description('workspace settings (panos: the default panorama cache)');
  config
    .command('set')
    .argument('<key>', 'setting name')
    .argument('<value>', 'value')
    .option('--json', 'JSON output')
    .action(async (key: string, value: string, opts, cmd: Command) => (await import('./commands/config.js')).setCommand(key, value, withGlobals(opts, cmd)));
  config
    .command('get')
    .description('print a setting (exit 1 when not set)')
    .argument('<key>', 'setting name')
    .option('--json', 'JSON output')
    .action(async (key: string, opts, cmd: Command) => (await import('./commands/config.js')).getCommand(key, withGlobals(opts, cmd)));
  config
    .command('unset')
    .argument('<key>', 'setting name')
    .option('--json', 'JSON output')
    .action(async (key: string, opts, cmd: Command) => (await import('./commands/config.js')).unsetCommand(key, withGlobals(opts, cmd)));
  config
    .command('list')
    .option('--json', 'JSON output')
    .action(async (opts, cmd: Command) => (await import('./commands/config.js')).listCommand(withGlobals(opts, cmd)));

  const panos = program.command('panos').description('panorama caches');
  panos
    .command('fetch')
    .description('download every frame of a task file or task set from Mapillary (MAPILLARY_ACCESS_TOKEN); resumes')
    .argument('<tasks>', 'task JSONL file or workspace task set name')
    .option('--panos <dir>', 'cache directory (default: the task set\'s, else `config get panos`, else the workspace\'s)')
    .option('--concurrency <n>', 'downloads at a time', integer('--concurrency'), 8)
    .option('--json', 'JSON output')
    .action(async (tasks: string, opts, cmd: Command) => (await import('./commands/panos.js')).fetchCommand(tasks, withGlobals(opts, cmd)));

  const episodes = program.command('episodes').description('recorded episodes');
  episodes
    .command('list')
    .description('recorded episodes, newest first')
    .option('--limit <n>', 'at most this many', integer('--limit'), 50)
    .option('--model <name>', 'only models whose name starts with this (any case)')
    .option('--split <name>', 'only this split')
    .option('--country <name>', 'only this country: the start of its name, or any code, name or demonym of it (serbia, RS, serbian)')
    .option('--verdict <verdict>', 'only verdicts starting with this (any case): wrong, right, close, pinpoint, perfect')
    .option('--min-reward <r>', 'only episodes whose recorded reward is at least this', number('--min-reward'))
    .option('--search <text>', 'only episodes with this text (any case) in the id, model, task id, country, verdict or error')
    .option('--status <status>', 'only episodes that ended so: scored, failed, aborted or provider-error (a turn whose model request got no reply)')
    .option('--text <words>', "only episodes whose prompts, replies or reasoning hold these words, in order (full text; the last word by its start, any case and accents)")
    .option('--run <id>', 'only the episodes of this run')
    .option('--json', 'JSON output')
    .action(async (opts, cmd: Command) => (await import('./commands/episodes.js')).listCommand(withGlobals(opts, cmd)));
  episodes
    .command('show')
    .description('step through one episode in the Player (plain text without a terminal)')
    .argument('<id>', 'episode id or a unique prefix of it')
    .option('--json', 'print the schema-v2 record')
    .action(async (id: string, opts, cmd: Command) => (await import('./commands/episode-show.js')).showCommand(id, withGlobals(opts, cmd)));
  episodes
    .command('compare')
    .description('two episodes of one task side by side, turn by turn (the Compare screen on a terminal)')
    .argument('<a>', 'episode id (or a unique prefix), or FILE[:LINE] of episode JSONL')
    .argument('<b>', 'the other episode, the same way')
    .option('--json', 'the aligned turns and both outcomes as JSON')
    .action(async (a: string, b: string, opts, cmd: Command) => (await import('./commands/episodes-compare.js')).compareCommand(a, b, withGlobals(opts, cmd)));
  episodes
    .command('replay')
    .description('draw every recorded image again from its camera and check its sha256 (exit 1 when one changed)')
    .argument('<episode>', 'episode id (or a unique prefix), or an episode JSONL FILE[:LINE]')
    .option('--view-size <px>', `side of the square views the recording environment served (default: the records' view_size, else ${DEFAULT_ENGINE_CONFIG.viewSizePx})`, integer('--view-size'))
    .option('--panos <dir>', "panorama cache (default: the task set's, else the workspace's)")
    .option('--json', 'per-turn results as JSON')
    .action(async (ref: string, opts, cmd: Command) => (await import('./commands/episodes-compare.js')).replayCommand(ref, withGlobals(opts, cmd)));
  episodes
    .command('retry')
    .description("send one recorded turn's exact request again, N times: would the model do that again? (exit 3 when the endpoint cannot be reached)")
    .argument('<episode>', 'episode id (or a unique prefix), or an episode JSONL FILE[:LINE]')
    .option('--turn <k>', 'the model turn to retry (1 is the first)', integer('--turn'))
    .option('--model <name>', "the model, as its endpoint serves it (default: the record's own, at its own base_url)")
    .option('--base-url <url>', 'its endpoint')
    .option('--models <file>', "the harness's model file (pick an entry with --name)")
    .option('--name <name>', 'the entry of --models')
    .option('--api-key-env <VAR>', 'environment variable holding the API key (none sent when unset)')
    .option('--samples <n>', 'how many times to send it (default 5)', integer('--samples'))
    .option('--temperature <t>', "in place of the recorded temperature", number('--temperature'))
    .option('--edit', 'edit the messages in $VISUAL/$EDITOR before sending them')
    .option('--json', 'recorded reply, samples, summary and the hash check as JSON')
    .action(async (ref: string, opts, cmd: Command) => (await import('./commands/episodes-retry.js')).retryCommand(ref, withGlobals(opts, cmd)));
  episodes
    .command('fork')
    .description('replay an episode up to turn K (its recorded decisions, every view checked), then play on live from K: a model, or you (--play)')
    .argument('<episode>', 'episode id (or a unique prefix), or an episode JSONL FILE[:LINE]')
    .option('--turn <k>', 'the first turn played live (1 to the episode\'s last turn)', integer('--turn'))
    .option('--model <name>', 'model that plays on, as the endpoint lists it (with --base-url)')
    .option('--base-url <url>', 'OpenAI-compatible endpoint of --model')
    .option('--models <file>', "the harness's model file (pick an entry with --name)")
    .option('--name <name>', 'the entry of --models that plays on')
    .option('--api-key-env <VAR>', 'environment variable holding the API key (none sent when unset)')
    .option('--play', 'you play on from turn K in the Live screen (needs a terminal)')
    .option('--headless', 'no Live screen: one line per turn, then both outcomes side by side')
    .option('--env <url>', 'a remote environment server (default: the embedded one)')
    .option('--json', 'print the fork\'s id and both outcomes as JSON (no Live screen)')
    .action(async (ref: string, opts, cmd: Command) => (await import('./commands/episodes-fork.js')).forkCommand(ref, withGlobals(opts, cmd)));
  episodes
    .command('import')
    .description('import schema-v2 episode files and whole run trees (the public harness\'s runs) into the workspace; idempotent')
    .argument('<paths...>', 'episodes JSONL files, or run folders (<run>/episodes.jsonl, pass-<p>/shard-<i>/episodes.jsonl)')
    .option('--skip-invalid', 'skip and count bad lines instead of stopping')
    .option('--run-id <id>', 'put every imported episode in this run (default: a tree\'s run folder, none for a file)')
    .option('--images-dir <dir>', "a folder besides the file's own that image_path may point into")
    .option('--json', 'JSON output')
    .action(async (paths: string[], opts, cmd: Command) => (await import('./commands/episodes.js')).importCommand(paths, withGlobals(opts, cmd)));

  const audit = auditSourceOptions(
    program.command('audit').description('audit prompts for task-identity leaks (the workspace\'s episodes when no source is named); exit 1 on new findings'),
  )
    .option('--baseline <file>', "accepted findings (default: the workspace's audit-baseline.json when its episodes are audited, else ./geolab-audit-baseline.json); a file that does not exist yet accepts nothing")
    .option('--update', 'accept every current finding into the baseline (written atomically)')
    .addOption(new Option('--fail-on <severity>', 'exit 1 on a new finding of this severity or above').choices(['high', 'medium', 'low']).default('high'))
    .option('--skip-invalid', 'skip bad lines of prompt files, listing each with file:line (the run then exits 1)')
    .option('--json', 'JSON output')
    .option('--sarif', 'SARIF 2.1.0 output, for code scanning')
    .action(async (opts, cmd: Command) => (await import('./commands/audit.js')).auditCommand(withGlobals(opts, cmd)));
  // `add` runs the audit of the sources it is given (as `geolab audit` takes them) to check the id;
  // all three use the baseline file that audit would.
  const baseline = audit.command('baseline').description('the baseline of accepted findings');
  auditSourceOptions(baseline.command('add'))
    .description('accept one current finding of the audit of the sources named, with the reason (who and when are recorded); an id no finding has is refused with the closest')
    .argument('<id>', "the finding's id")
    .requiredOption('--reason <text>', 'why it is acceptable')
    .option('--baseline <file>', 'baseline file (default: as the audit\'s)')
    .action(async (id: string, opts: { reason: string }, cmd: Command) => (await import('./commands/audit.js')).baselineAddCommand(id, withGlobals(opts, cmd)));
  baseline
    .command('list')
    .description('the accepted findings: id, when, who and why')
    .option('--baseline <file>', 'baseline file (default: as the audit\'s)')
    .option('--json', 'JSON output')
    .action(async (opts, cmd: Command) => (await import('./commands/audit.js')).baselineListCommand(withGlobals(opts, cmd)));
  baseline
    .command('remove')
    .description('stop accepting one finding; an id the baseline lacks is refused with the closest')
    .argument('<id>', "the finding's id")
    .option('--baseline <file>', 'baseline file (default: as the audit\'s)')
    .action(async (id: string, opts, cmd: Command) => (await import('./commands/audit.js')).baselineRemoveCommand(id, withGlobals(opts, cmd)));

  program
    .command('play')
    .description('play a task yourself in the terminal')
    .option('--split <name>', 'split to play from')
    .option('--task <n>', 'task index', integer('--task'))
    .option('--env <url>', 'a remote environment server (default: the embedded one)')
    .option('--panos <dir>', 'panorama cache of the embedded environment')
    .option('--fetch', 'fetch missing panoramas from Mapillary (needs MAPILLARY_ACCESS_TOKEN)')
    .action(async (opts, cmd: Command) => (await import('./commands/play.js')).playCommand(withGlobals(opts, cmd)));

  program
    .command('agent')
    .description('run one episode with a model (or a baseline) and record it; live in the TUI on a terminal')
    .option('--policy <policy>', 'model, random-land, fixed or prior', 'model')
    .option('--model <name>', 'model name served by the endpoint')
    .option('--base-url <url>', 'OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1')
    .option('--api-key-env <VAR>', 'environment variable holding the API key (none sent when unset)')
    .addOption(new Option('--protocol <protocol>', 'how actions are asked for').choices(PROTOCOLS).default(DEFAULT_PROTOCOL))
    .addOption(new Option('--tools <set>', 'tools offered with --protocol tools').choices(['trained', 'all']).default('trained'))
    .option('--prompt-file <file>', "a prompt template with the harness's {max_turns} and {tools} in place of geolab's instructions")
    .option('--point <lat,lon>', 'the point of --policy fixed')
    .option('--split <name>', 'split to play from')
    .option('--task <n>', 'task index', integer('--task'))
    .option('--env <url>', 'a remote environment server (default: the embedded one)')
    .option('--max-turns <n>', 'turns before the forced guess', integer('--max-turns'), DEFAULT_MAX_TURNS)
    .option('--image-size <px>', 'side of the images sent to the model', integer('--image-size'), DEFAULT_IMAGE_SIZE_PX)
    .option('--temperature <t>', 'sampling temperature', number('--temperature'))
    .option('--max-tokens <n>', 'completion token cap', integer('--max-tokens'))
    .option('--timeout <s>', 'seconds per model request before it is retried', number('--timeout'))
    .option('--max-reply-mb <n>', 'largest model reply read, in MiB (default 16): a larger one is a provider error', number('--max-reply-mb'))
    .option('--panos <dir>', 'panorama cache of the embedded environment')
    .option('--fetch', 'fetch missing panoramas from Mapillary (needs MAPILLARY_ACCESS_TOKEN)')
    .option('--headless', 'no TUI: one plain line per turn')
    .option('--json', 'print the recorded episode as JSON when done (implies --headless)')
    .action(async (opts, cmd: Command) => (await import('./commands/agent.js')).agentCommand(withGlobals(opts, cmd)));
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
      (await import('./commands/eval.js')).reportCommand(roots, { ...withGlobals(opts, cmd), fromWorkspace: cmd.optsWithGlobals().workspace !== undefined }),
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
    .action(async (opts, cmd: Command) => (await import('./commands/eval-run.js')).evalRunCommand(withGlobals(opts, cmd)));
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
    .action(async (opts, cmd: Command) => (await import('./commands/train.js')).initCommand(withGlobals(opts, cmd)));
  train
    .command('preflight')
    .description('check GPU, Python packages, disk, environment, panoramas and secrets before a run; exit 1 on any fail')
    .argument('<config>', "the run's config.json")
    .option('--json', 'the report as JSON')
    .addHelpText('after', '\nAn environment that cannot be reached is a failed check (exit 1), like any other.')
    .action(async (file: string, opts, cmd: Command) => (await import('./commands/train.js')).preflightCommand(file, withGlobals(opts, cmd)));
  train
    .command('serve')
    .description("print (with --exec run) the vLLM command of the config's Python environment serving a run's adapter in its trained mode, and the `eval run` line scoring adapter and base alike (writes its models file)")
    .argument('<run>', 'a run folder (holding config.json), its config file, or a launched run by name')
    .option('--checkpoint <step>', 'serve checkpoint-STEP (default: the final adapter, else the last checkpoint)', integer('--checkpoint'))
    .option('--port <port>', 'port of the vLLM server', integer('--port'), 8000)
    .option('--exec', 'run the command in the foreground (Ctrl-C stops it)')
    .option('--json', 'the plan as JSON')
    .action(async (run: string, opts, cmd: Command) => (await import('./commands/train.js')).serveCommand(run, withGlobals(opts, cmd)));
  train
    .command('launch')
    .description('pre-flight, then the environment server (env.mode local) and the trainer, each in its own process group; writes <output_dir>/launch.json')
    .argument('<config>', 'training config JSON')
    .option('--dry-run', 'print what would run; start and write nothing')
    .option('--no-preflight', 'skip the pre-flight checks (after `geolab train preflight`)')
    .option('--trainer <script>', "the trainer script (default: geolab's)")
    .option('--json', 'print the launch record')
    .action(async (config: string, opts, cmd: Command) => (await import('./commands/train-run.js')).launchCommand(config, withGlobals(opts, cmd)));
  train
    .command('smoke')
    .description('two optimizer steps of the real stack from one generation batch, a checkpoint, and one reply from the served adapter, each stage printed as it passes (about ten minutes on an A100); exit 1 naming the stage and its log')
    .argument('<config>', "the run's config.json (never written: the smoke run's own goes to <output_dir>/smoke/)")
    .option('--model <id>', "another base model than the config's (an id or a local folder)")
    .option('--port <port>', 'port of the served adapter (default: a free one)', integer('--port'))
    .option('--trainer <script>', "the trainer script (default: geolab's)")
    .option('--json', 'one JSON object per stage')
    .action(async (config: string, opts, cmd: Command) => (await import('./commands/train-smoke.js')).smokeCommand(config, withGlobals(opts, cmd)));
  train
    .command('watch')
    .description('the Train screen on a terminal; otherwise a progress line per change until the run ends (exit 1 if it crashed)')
    .argument('<run>', "run name, or the run's output directory")
    .option('--once', 'print one snapshot: phase, step, ETA, last metrics, warnings')
    .option('--interval <s>', 'seconds between looks without a terminal', number('--interval'), 2)
    .option('--json', 'JSON snapshots')
    .action(async (run: string, opts, cmd: Command) => (await import('./commands/train-run.js')).watchCommand(run, withGlobals(opts, cmd)));
  train
    .command('stop')
    .description('SIGINT to the trainer (it ends the step, saves a checkpoint and exits), SIGTERM after the grace period; stops the environment server too')
    .argument('<run>', "run name, or the run's output directory")
    .option('--grace <s>', 'seconds to wait for the checkpoint before SIGTERM (default 600: a step takes minutes)', number('--grace'))
    .option('--json', 'JSON output')
    .action(async (run: string, opts, cmd: Command) => (await import('./commands/train-run.js')).stopCommand(run, withGlobals(opts, cmd)));
  train
    .command('resume')
    .description('launch a stopped or crashed run again from its last checkpoint-N')
    .argument('<run>', "run name, or the run's output directory")
    .option('--no-preflight', 'skip the pre-flight checks')
    .option('--trainer <script>', 'the trainer script (default: the one it was launched with)')
    .option('--json', 'print the launch record')
    .action(async (run: string, opts, cmd: Command) => (await import('./commands/train-run.js')).resumeCommand(run, withGlobals(opts, cmd)));
  // Only the program itself: the subcommands copied the setting when they were added, and keep refusing.
  program.allowExcessArguments(true);
  return program;
}

export interface GlobalOptions {
  workspace?: string;
  json?: boolean;
  images?: string;
}

/** Merges the program-wide options into a subcommand's own, so `--json` works before or after it. */
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

function withGlobals<T extends object>(opts: T, cmd: Command): T & GlobalOptions {
  const globals = cmd.optsWithGlobals() as Omit<GlobalOptions, 'workspace'> & { workspace?: string | true };
  // A bare --workspace (`eval report --workspace`) names the default workspace.
  return { ...globals, workspace: globals.workspace === true ? undefined : globals.workspace, ...opts };
}

function integer(flag: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError(`${flag} expects an integer, got "${value}"`);
    return parsed;
  };
}

function number(flag: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (value.trim() === '' || !Number.isFinite(parsed)) throw new InvalidArgumentError(`${flag} expects a number, got "${value}"`);
    return parsed;
  };
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
