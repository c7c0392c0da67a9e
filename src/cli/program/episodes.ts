/** `geolab episodes`, `play` and `agent`: recorded episodes, and playing new ones. */
import { Option, type Command } from 'commander';
import { DEFAULT_IMAGE_SIZE_PX, DEFAULT_MAX_TURNS, DEFAULT_PROTOCOL, PROTOCOLS } from '../../agent/agent-settings.js';
import { DEFAULT_ENGINE_CONFIG } from '../../env/engine-config.js';
import { integer, number, withGlobals } from '../options.js';

export function registerEpisodeCommands(program: Command): void {
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
    .action(async (opts, cmd: Command) => (await import('../commands/episodes.js')).listCommand(withGlobals(opts, cmd)));
  episodes
    .command('show')
    .description('step through one episode in the Player (plain text without a terminal)')
    .argument('<id>', 'episode id or a unique prefix of it')
    .option('--json', 'print the schema-v2 record')
    .action(async (id: string, opts, cmd: Command) => (await import('../commands/episode-show.js')).showCommand(id, withGlobals(opts, cmd)));
  episodes
    .command('compare')
    .description('two episodes of one task side by side, turn by turn (the Compare screen on a terminal)')
    .argument('<a>', 'episode id (or a unique prefix), or FILE[:LINE] of episode JSONL')
    .argument('<b>', 'the other episode, the same way')
    .option('--json', 'the aligned turns and both outcomes as JSON')
    .action(async (a: string, b: string, opts, cmd: Command) => (await import('../commands/episodes-compare.js')).compareCommand(a, b, withGlobals(opts, cmd)));
  episodes
    .command('replay')
    .description('draw every recorded image again from its camera and check its sha256 (exit 1 when one changed)')
    .argument('<episode>', 'episode id (or a unique prefix), or an episode JSONL FILE[:LINE]')
    .option('--view-size <px>', `side of the square views the recording environment served (default: the records' view_size, else ${DEFAULT_ENGINE_CONFIG.viewSizePx})`, integer('--view-size'))
    .option('--panos <dir>', "panorama cache (default: the task set's, else the workspace's)")
    .option('--json', 'per-turn results as JSON')
    .action(async (ref: string, opts, cmd: Command) => (await import('../commands/episodes-compare.js')).replayCommand(ref, withGlobals(opts, cmd)));
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
    .action(async (ref: string, opts, cmd: Command) => (await import('../commands/episodes-fork.js')).forkCommand(ref, withGlobals(opts, cmd)));
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
    .action(async (ref: string, opts, cmd: Command) => (await import('../commands/episodes-retry.js')).retryCommand(ref, withGlobals(opts, cmd)));
  episodes
    .command('import')
    .description('import schema-v2 episode files and whole run trees (the public harness\'s runs) into the workspace; idempotent')
    .argument('<paths...>', 'episodes JSONL files, or run folders (<run>/episodes.jsonl, pass-<p>/shard-<i>/episodes.jsonl)')
    .option('--skip-invalid', 'skip and count bad lines instead of stopping')
    .option('--run-id <id>', 'put every imported episode in this run (default: a tree\'s run folder, none for a file)')
    .option('--images-dir <dir>', "a folder besides the file's own that image_path may point into")
    .option('--json', 'JSON output')
    .action(async (paths: string[], opts, cmd: Command) => (await import('../commands/episodes.js')).importCommand(paths, withGlobals(opts, cmd)));
}

/** `geolab play` and `geolab agent`: a task played by you or by a model, live. */
export function registerPlayCommands(program: Command): void {
  program
    .command('play')
    .description('play a task yourself in the terminal')
    .option('--split <name>', 'split to play from')
    .option('--task <n>', 'task index', integer('--task'))
    .option('--env <url>', 'a remote environment server (default: the embedded one)')
    .option('--panos <dir>', 'panorama cache of the embedded environment')
    .option('--fetch', 'fetch missing panoramas from Mapillary (needs MAPILLARY_ACCESS_TOKEN)')
    .action(async (opts, cmd: Command) => (await import('../commands/play.js')).playCommand(withGlobals(opts, cmd)));

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
    .action(async (opts, cmd: Command) => (await import('../commands/agent.js')).agentCommand(withGlobals(opts, cmd)));
}
