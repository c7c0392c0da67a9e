/** `geolab geo`, `geolab score` and `geolab env`: geography, scoring and the embedded environment. */
import { Option, type Command } from 'commander';
import { DEFAULT_ENGINE_CONFIG } from '../../env/engine-config.js';
import { DEFAULT_MAX_SESSIONS, DEFAULT_PORT } from '../../env/server/defaults.js';
import { integer, number, withGlobals } from '../options.js';

export function registerEnvironmentCommands(program: Command): void {
  const geo = program.command('geo').description('offline geography');
  geo
    .command('locate')
    .description('country, subregion, continent and nearest major city of a point; `-` reads "lat,lon" lines from stdin')
    .argument('<lat|->', 'latitude, or - to read lat,lon lines from stdin')
    .argument('[lon]', 'longitude')
    .option('--json', 'one JSON object per point')
    .action(async (lat: string, lon: string | undefined, opts: { json?: boolean }, cmd: Command) =>
      (await import('../commands/geo.js')).locateCommand(lat, lon, withGlobals(opts, cmd)),
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
    .action(async (opts, cmd: Command) => (await import('../commands/score.js')).scoreCommand(withGlobals(opts, cmd)));

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
    .action(async (opts, cmd: Command) => (await import('../commands/env.js')).serveCommand(withGlobals(opts, cmd)));
}
