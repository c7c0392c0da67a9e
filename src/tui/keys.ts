/**
 * The one key-binding table (docs/tui.md, 'One key table'): command -> keys -> description. Screens ask
 * `matches('player.next', input, key)`; the help overlay and the footers are generated from here, so
 * a key cannot do one thing and be documented as another.
 */
import type { Key } from 'ink';
import { FILTER_MATCHING, FILTER_SYNTAX } from './state/episode-filter.js';
import { BUFFER_STEP_KM, EVAL_SIZE_STEP } from './state/splits-steps.js';

/** Named keys; anything else in a binding is the literal character typed. */
type NamedKey = 'left' | 'right' | 'up' | 'down' | 'enter' | 'escape' | 'space' | 'backspace' | 'pageup' | 'pagedown' | 'tab' | 'backtab';

export interface Binding {
  readonly keys: readonly (NamedKey | (string & {}))[];
  readonly description: string;
}

/** Which screen (or screen mode) a command belongs to; the help overlay shows one or two groups. */
export type KeyGroup = 'home' | 'episodes' | 'player' | 'request' | 'decision' | 'live' | 'person' | 'model' | 'reveal' | 'prompt' | 'confirm' | 'watch' | 'pools' | 'splits' | 'audit' | 'eval' | 'sweep' | 'train' | 'compare';

export const KEYMAP = {
  'home.up': { keys: ['up', 'k'], description: 'previous item' },
  'home.down': { keys: ['down', 'j'], description: 'next item' },
  'home.open': { keys: ['enter'], description: 'open' },
  'home.splits': { keys: ['s'], description: 'Splits: build task splits by country' },
  'home.audit': { keys: ['a'], description: 'open Audit' },
  'home.eval': { keys: ['v'], description: 'open the Eval board' },
  'home.train': { keys: ['t'], description: 'open Train: the training runs' },
  'home.help': { keys: ['?'], description: 'help' },
  'home.quit': { keys: ['q'], description: 'quit' },

  'episodes.up': { keys: ['up', 'k'], description: 'previous episode' },
  'episodes.down': { keys: ['down', 'j'], description: 'next episode' },
  'episodes.pageUp': { keys: ['pageup'], description: 'page up' },
  'episodes.pageDown': { keys: ['pagedown'], description: 'page down' },
  'episodes.open': { keys: ['enter'], description: 'play back the episode' },
  'episodes.mark': { keys: ['x'], description: 'mark the episode; on another of the same task, compare the two' },
  'episodes.filter': { keys: ['/'], description: `filter (${FILTER_SYNTAX}); ${FILTER_MATCHING}` },
  'episodes.clearFilter': { keys: ['c'], description: 'clear the filter' },
  'episodes.sort': { keys: ['s'], description: 'sort by recent → reward → distance → turns' },
  'episodes.reverse': { keys: ['S'], description: 'reverse the order' },
  'episodes.help': { keys: ['?'], description: 'help' },
  'episodes.back': { keys: ['q', 'escape'], description: 'back' },

  'player.prev': { keys: ['left', 'h'], description: 'previous turn' },
  'player.next': { keys: ['right', 'l'], description: 'next turn' },
  'player.first': { keys: ['g'], description: 'first turn' },
  'player.last': { keys: ['G'], description: 'last turn' },
  'player.autoplay': { keys: ['space'], description: 'autoplay on/off' },
  'player.reasoning': { keys: ['r'], description: 'show/hide the reasoning' },
  'player.imageSize': { keys: ['i'], description: 'image size small/large' },
  'player.map': { keys: ['m'], description: 'world map on/off' },
  'player.prompt': { keys: ['p'], description: "the turn's full request: every message the model was sent" },
  'player.retry': { keys: ['R'], description: "retry the turn: send its request again, the samples beside the recorded reply" },
  'player.fork': { keys: ['F'], description: 'fork: a new episode in Live replays the turns before this one, then a model (or you) plays on' },
  'player.help': { keys: ['?'], description: 'help' },
  'player.back': { keys: ['q'], description: 'back' },

  // The Player's request view (player.prompt): it scrolls, and closes back to the turn.
  'request.up': { keys: ['up', 'k'], description: 'scroll up' },
  'request.down': { keys: ['down', 'j'], description: 'scroll down' },
  'request.pageUp': { keys: ['pageup', 'b'], description: 'page up' },
  'request.pageDown': { keys: ['pagedown', 'space'], description: 'page down' },
  'request.top': { keys: ['g'], description: 'top' },
  'request.bottom': { keys: ['G'], description: 'bottom' },
  'request.help': { keys: ['?'], description: 'help' },
  'request.close': { keys: ['q', 'escape', 'p'], description: 'close the request' },

  // The Player's retry and fork panel (player.retry, player.fork): an endpoint form, then the samples.
  // Letters are typed into the fields; on Start they act.
  'decision.next': { keys: ['down', 'tab'], description: 'next field' },
  'decision.prev': { keys: ['up', 'backtab'], description: 'previous field' },
  'decision.erase': { keys: ['backspace'], description: 'erase' },
  'decision.enter': { keys: ['enter'], description: 'next field; on Start: send (retry) or play on (fork)' },
  'decision.person': { keys: ['p'], description: 'fork, on Start: play on yourself instead of a model' },
  'decision.help': { keys: ['?'], description: 'help' },
  'decision.close': { keys: ['escape'], description: 'close, stopping requests in flight' },

  'live.help': { keys: ['?'], description: 'help' },
  'live.quit': { keys: ['q'], description: 'quit (asks to confirm)' },
  'live.pane': { keys: ['m'], description: 'view ↔ map (no step; after the guess, the reveal)' },
  'live.reasoning': { keys: ['r'], description: "the turn's reasoning and reply in full, in place of the view (again: back)" },

  'person.panLeft': { keys: ['left'], description: 'pan 45° left' },
  'person.panRight': { keys: ['right'], description: 'pan 45° right' },
  'person.forward': { keys: ['up'], description: 'walk 15 m forward' },
  'person.backward': { keys: ['down'], description: 'walk 15 m back' },
  'person.zoom': { keys: ['z'], description: 'field of view 90 → 50 → 30' },
  'person.look': { keys: ['l'], description: 'look again' },
  'person.pin': { keys: ['p'], description: 'pin a map at "lat, lon"' },
  'person.map': { keys: ['v'], description: 'map around the last pin' },
  'person.guess': { keys: ['g'], description: 'guess "lat, lon"' },

  'model.pause': { keys: ['space'], description: 'pause/resume' },
  'model.step': { keys: ['n'], description: 'play one more step, then hold' },
  'model.abort': { keys: ['a'], description: 'abort the episode' },

  // After the guess, instead of the person's or the model's keys.
  'reveal.earlier': { keys: ['up', 'k'], description: 'read an earlier turn' },
  'reveal.later': { keys: ['down', 'j'], description: 'read a later turn' },

  'prompt.submit': { keys: ['enter'], description: 'submit' },
  'prompt.cancel': { keys: ['escape'], description: 'cancel' },
  'prompt.erase': { keys: ['backspace'], description: 'erase' },

  'confirm.yes': { keys: ['y'], description: 'yes' },
  'confirm.no': { keys: ['n', 'escape'], description: 'no' },

  // The "Watch a model" form: letters are typed into the fields, so only named keys and ? act.
  'watch.next': { keys: ['down', 'tab'], description: 'next field' },
  'watch.prev': { keys: ['up', 'backtab'], description: 'previous field' },
  'watch.choose': { keys: ['left', 'right'], description: 'other protocol (tools/json)' },
  'watch.erase': { keys: ['backspace'], description: 'erase' },
  'watch.enter': { keys: ['enter'], description: 'next field; on the last one or Start: start' },
  'watch.help': { keys: ['?'], description: 'help' },
  'watch.back': { keys: ['escape'], description: 'back' },

  // The Splits screen: first the pool, then the per-country table that steers the split.
  'pools.up': { keys: ['up', 'k'], description: 'previous pool' },
  'pools.down': { keys: ['down', 'j'], description: 'next pool' },
  'pools.open': { keys: ['enter'], description: 'open the pool (the last line: type a task file)' },
  'pools.help': { keys: ['?'], description: 'help' },
  'pools.back': { keys: ['q', 'escape'], description: 'back' },

  'splits.up': { keys: ['up', 'k'], description: 'previous country' },
  'splits.down': { keys: ['down', 'j'], description: 'next country' },
  'splits.toggle': { keys: ['space'], description: 'include/exclude the country' },
  'splits.capUp': { keys: ['+', '='], description: "raise the country's eval cap" },
  'splits.capDown': { keys: ['-'], description: "lower the country's eval cap" },
  'splits.sort': { keys: ['s'], description: 'sort by pool → eval → train → cap → country' },
  'splits.evalMore': { keys: [']'], description: `eval size +${EVAL_SIZE_STEP}` },
  'splits.evalLess': { keys: ['['], description: `eval size -${EVAL_SIZE_STEP}` },
  'splits.bufferMore': { keys: ['>'], description: `buffer +${BUFFER_STEP_KM} km` },
  'splits.bufferLess': { keys: ['<'], description: `buffer -${BUFFER_STEP_KM} km` },
  'splits.contributor': { keys: ['c'], description: 'contributor-exclusive on/off' },
  'splits.write': { keys: ['w'], description: 'write: asks the directory, the name, then to confirm' },
  'splits.help': { keys: ['?'], description: 'help' },
  'splits.back': { keys: ['q', 'escape'], description: 'back' },

  'audit.up': { keys: ['up', 'k'], description: 'previous finding' },
  'audit.down': { keys: ['down', 'j'], description: 'next finding' },
  'audit.open': { keys: ['enter'], description: "open the finding's turn in the Player" },
  'audit.accept': { keys: ['a'], description: 'accept the finding with a reason (writes the baseline)' },
  'audit.acceptKind': { keys: ['A'], description: "accept every open finding of the finding's kind, with one reason" },
  'audit.acceptSource': { keys: ['S'], description: "accept every open finding of the finding's source, with one reason" },
  'audit.search': { keys: ['/'], description: 'search the findings: the list filters as you type; enter keeps the filter, esc clears it' },
  'audit.request': { keys: ['p'], description: "the finding's request (every message the model was sent), scrolled to its span" },
  'audit.rerun': { keys: ['R'], description: 'run the audit again' },
  'audit.explained': { keys: ['e'], description: "list the mentions the agent's own points explain (and back)" },
  'audit.export': { keys: ['x'], description: 'export the findings as JSON into the workspace' },
  'audit.exportSarif': { keys: ['X'], description: 'export the findings as SARIF into the workspace' },
  'audit.help': { keys: ['?'], description: 'help' },
  'audit.back': { keys: ['q', 'escape'], description: 'back' },

  // The Eval board: the arms table, its pickers, an arm by country or verdict, a group's worst episodes.
  'eval.up': { keys: ['up', 'k'], description: 'previous row' },
  'eval.down': { keys: ['down', 'j'], description: 'next row' },
  'eval.open': { keys: ['enter'], description: 'open (by country, worst episodes, the Player); done in a picker' },
  'eval.country': { keys: ['c'], description: 'the selected arm by country' },
  'eval.verdict': { keys: ['v'], description: 'the selected arm by verdict' },
  'eval.runs': { keys: ['r'], description: 'choose the runs the report includes' },
  'eval.toggle': { keys: ['space'], description: 'include/exclude the run (run list)' },
  'eval.baseline': { keys: ['b'], description: 'choose the baseline arm of the paired comparisons' },
  'eval.reload': { keys: ['R'], description: "read the workspace's episodes again" },
  'eval.resume': { keys: ['u'], description: 'resume the first stopped or interrupted sweep listed, in this app (same folder, run id and options); it goes on when the board is left' },
  'eval.newSweep': { keys: ['n'], description: 'new sweep: a form for the models, split, k, task limit, concurrency and output folder; it runs in this app and goes on when the board is left' },
  'eval.export': { keys: ['x'], description: 'write the table shown (every row and column) as CSV into the workspace: exports/eval-<time>.csv' },
  'eval.help': { keys: ['?'], description: 'help' },
  'eval.back': { keys: ['q', 'escape'], description: 'back' },
  // The board's new-sweep form (eval.newSweep): letters are typed into the fields, so only named keys and ? act.
  'sweep.next': { keys: ['down', 'tab'], description: 'next field' },
  'sweep.prev': { keys: ['up', 'backtab'], description: 'previous field' },
  'sweep.choose': { keys: ['left', 'right'], description: 'models from an endpoint or a models file' },
  'sweep.erase': { keys: ['backspace'], description: 'erase' },
  'sweep.enter': { keys: ['enter'], description: 'next field; on the last one or Start: start the sweep (it shows on the board)' },
  'sweep.close': { keys: ['escape'], description: 'back to the board, starting nothing' },
  // The Train screen: a run's progress and its recent rollouts (or, without a run, the runs).
  'train.up': { keys: ['up', 'k'], description: 'previous run or rollout' },
  'train.down': { keys: ['down', 'j'], description: 'next run or rollout' },
  'train.stop': { keys: ['S'], description: 'stop the run: SIGINT (it saves a checkpoint), SIGTERM after 10 min without one; asks to confirm' },
  'train.open': { keys: ['enter'], description: "open the run; on a rollout, its turns (traces keep no images, so they are not a Player episode)" },
  'train.help': { keys: ['?'], description: 'help' },
  'train.back': { keys: ['q', 'escape'], description: 'back' },
  // Two episodes of one task side by side.
  'compare.prev': { keys: ['left', 'h'], description: 'previous turn' },
  'compare.next': { keys: ['right', 'l'], description: 'next turn' },
  'compare.first': { keys: ['g'], description: 'first turn' },
  'compare.last': { keys: ['G'], description: 'last turn' },
  'compare.map': { keys: ['m'], description: 'map of both guesses and the truth on/off' },
  'compare.help': { keys: ['?'], description: 'help' },
  'compare.back': { keys: ['escape', 'q'], description: 'back' },
} as const satisfies Record<string, Binding>;

export type Command = keyof typeof KEYMAP;

/** True when the keypress is one of the command's keys. */
export function matches(command: Command, input: string, key: Key): boolean {
  return KEYMAP[command].keys.some((k) => pressed(k, input, key));
}

function pressed(binding: string, input: string, key: Key): boolean {
  switch (binding) {
    case 'left':
      return key.leftArrow;
    case 'right':
      return key.rightArrow;
    case 'up':
      return key.upArrow;
    case 'down':
      return key.downArrow;
    case 'enter':
      return key.return;
    case 'escape':
      return key.escape;
    case 'space':
      return input === ' ';
    // Terminals send DEL (0x7f) for Backspace, which Ink reports as `delete`.
    case 'backspace':
      return key.backspace || key.delete;
    case 'pageup':
      return key.pageUp;
    case 'pagedown':
      return key.pageDown;
    // Shift+Tab arrives as tab with shift.
    case 'tab':
      return key.tab && !key.shift;
    case 'backtab':
      return key.tab && key.shift;
    default:
      return input === binding && !key.ctrl && !key.meta;
  }
}

const KEY_LABELS: Record<string, string> = {
  left: '←',
  right: '→',
  up: '↑',
  down: '↓',
  enter: 'enter',
  escape: 'esc',
  space: 'space',
  backspace: 'backspace',
  pageup: 'pgup',
  pagedown: 'pgdn',
  tab: 'tab',
  backtab: 'shift+tab',
};

function labelOf(key: string): string {
  return KEY_LABELS[key] ?? key;
}

/** How a command's keys are written in the help: "←/h". */
export function keyLabel(command: Command): string {
  return KEYMAP[command].keys.map(labelOf).join('/');
}

export interface HelpEntry {
  command: Command;
  keys: string;
  description: string;
}

/** The commands of some groups in table order, for the help overlay. */
export function helpEntries(groups: readonly KeyGroup[]): HelpEntry[] {
  return (Object.keys(KEYMAP) as Command[])
    .filter((command) => groups.includes(command.slice(0, command.indexOf('.')) as KeyGroup))
    .map((command) => ({ command, keys: keyLabel(command), description: KEYMAP[command].description }));
}

/** A footer item: one command with its description, or several sharing a short label ("←/→ pan 45°"). */
export type HintItem = Command | { readonly commands: readonly Command[]; readonly label: string };

/** How many of a footer's last items (help, back or quit) are kept however narrow the terminal. */
const KEPT_HINTS = 2;

/**
 * A one-line key hint for a footer, written from the table with each command's first key (the help
 * overlay lists them all). Items that do not fit in `width` are left out, but never the last two.
 */
export function keyHint(items: readonly HintItem[], width = Infinity): string {
  const texts = items.map((item) => {
    const [commands, label] = typeof item === 'string' ? [[item], KEYMAP[item].description] : [item.commands, item.label];
    return `${commands.map((c) => labelOf(KEYMAP[c].keys[0]!)).join('/')} ${label}`;
  });
  const kept = texts.slice(-KEPT_HINTS);
  const shown: string[] = [];
  for (const text of texts.slice(0, -KEPT_HINTS)) {
    if ([...shown, text, ...kept].join(' · ').length <= width) shown.push(text);
  }
  return [...shown, ...kept].join(' · ');
}
