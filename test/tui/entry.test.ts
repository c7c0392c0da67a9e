import { describe, expect, it } from 'vitest';
import { openHome, openPlay, openPlayer, NoTerminalError } from '../../src/tui/entry.js';
import { openLiveScreen } from '../../src/tui/live-entry.js';
import { HumanPolicy } from '../../src/agent/policies/human.js';
import type { EnvClient } from '../../src/env/client/types.js';
import { tempDir } from '../helpers/fixtures.js';

describe('the entry points without a terminal', () => {
  // A test worker's stdin is not a TTY: exactly the case of a pipe or a CI job.
  it('refuse at once instead of waiting for keys, touching nothing', async () => {
    expect(process.stdin.isTTY).toBeFalsy();
    const workspace = tempDir('geolab-tui-entry-');
    await expect(openHome({ workspace })).rejects.toBeInstanceOf(NoTerminalError);
    await expect(openPlayer({ workspace, episodeId: 'abc' })).rejects.toThrow('needs an interactive terminal');
    await expect(openPlay({ workspace })).rejects.toBeInstanceOf(NoTerminalError);
    const client = {} as EnvClient;
    await expect(openLiveScreen({ client, policy: new HumanPolicy(), split: 'eval', index: 0 })).rejects.toBeInstanceOf(NoTerminalError);
  });
});
