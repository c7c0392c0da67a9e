/**
 * Semantic colours (docs/tui.md, 'Semantic colours'): components ask for `theme.verdict.close`, never for "yellow". With
 * NO_COLOR set (https://no-color.org: present and not empty) every colour is undefined, so Ink
 * emits no colour codes at all; emphasis then rests on bold, markers and layout.
 */

/** An Ink colour name or hex; undefined draws in the terminal's default colour. */
export type Colour = string | undefined;

export type VerdictTone = 'perfect' | 'pinpoint' | 'close' | 'region' | 'wrong';

export interface Theme {
  /** False under NO_COLOR: components that only make sense in colour (inline images) draw a placeholder. */
  readonly colour: boolean;
  readonly verdict: Readonly<Record<VerdictTone, Colour>>;
  readonly status: Readonly<{ error: Colour; ok: Colour; warn: Colour }>;
  readonly accent: Colour;
  readonly muted: Colour;
  /** Map marks: the guess, the truth, the great-circle line between them, pins. */
  readonly map: Readonly<{ land: Colour; guess: Colour; truth: Colour; path: Colour; pin: Colour }>;
}

const COLOURED: Theme = {
  colour: true,
  verdict: { perfect: 'magentaBright', pinpoint: 'greenBright', close: 'green', region: 'yellow', wrong: 'red' },
  status: { error: 'red', ok: 'green', warn: 'yellow' },
  accent: 'cyan',
  muted: 'gray',
  // The truth in blue, never green: a green mark vanishes among the green land dots.
  map: { land: 'green', guess: 'redBright', truth: 'blueBright', path: 'yellowBright', pin: 'cyanBright' },
};

const PLAIN: Theme = {
  colour: false,
  verdict: { perfect: undefined, pinpoint: undefined, close: undefined, region: undefined, wrong: undefined },
  status: { error: undefined, ok: undefined, warn: undefined },
  accent: undefined,
  muted: undefined,
  map: { land: undefined, guess: undefined, truth: undefined, path: undefined, pin: undefined },
};

export function createTheme(options: { colour: boolean }): Theme {
  return options.colour ? COLOURED : PLAIN;
}

/** Colour unless NO_COLOR is set to a non-empty value. */
export function colourFromEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  return !env.NO_COLOR;
}

/**
 * The tone of a verdict as the harness wrote it. Older harness versions worded verdicts
 * differently ("right_region", "wrong continent"), so the match is on the leading word.
 */
export function verdictTone(verdict: string | null | undefined): VerdictTone | undefined {
  const word = verdict?.toLowerCase().replace(/[^a-z]+/g, ' ').trim().split(' ')[0];
  switch (word) {
    case 'perfect':
      return 'perfect';
    case 'pinpoint':
      return 'pinpoint';
    case 'close':
      return 'close';
    case 'right':
      return 'region';
    case 'wrong':
      return 'wrong';
    default:
      return undefined;
  }
}
