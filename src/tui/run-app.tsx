/**
 * Draws the app with Ink until it exits and gives the terminal back as it was: raw mode off (Ink),
 * the alternate screen left, the shell's scrollback untouched.
 */
import { render } from 'ink';
import { App, type AppProps } from './app.js';
import { colourFromEnv, createTheme } from './theme.js';

const ENTER_ALTERNATE_SCREEN = '\x1b[?1049h';
const LEAVE_ALTERNATE_SCREEN = '\x1b[?1049l';

export async function runApp(props: Omit<AppProps, 'theme'>): Promise<void> {
  // In CI Ink prints only the last frame at exit, which the alternate screen would swallow.
  const alternate = Boolean(process.stdout.isTTY) && !inCi(process.env);
  if (alternate) process.stdout.write(ENTER_ALTERNATE_SCREEN);
  try {
    // Not Ink's incrementalRendering: in 6.8 it moves the cursor one line too few when a frame
    // ends in a newline (ours do: they are a row short of the screen), so every frame after the
    // first is drawn a line low over the stale one (test/e2e/tui.test.ts shows it).
    const instance = render(<App {...props} theme={createTheme({ colour: colourFromEnv() })} />, { exitOnCtrlC: true, maxFps: 120 });
    await instance.waitUntilExit();
  } finally {
    if (alternate) process.stdout.write(LEAVE_ALTERNATE_SCREEN);
  }
}

/** The rule Ink itself follows (is-in-ci): CI or CONTINUOUS_INTEGRATION set to anything but "0" or "false". */
function inCi(env: NodeJS.ProcessEnv): boolean {
  const set = (key: string) => key in env && env[key] !== '0' && env[key] !== 'false';
  return set('CI') || set('CONTINUOUS_INTEGRATION');
}
