/**
 * The Audit screen through the real binary in a real terminal (tmux): Home -> Audit on a workspace
 * with a planted leak, the first finding accepted with a typed reason, the workspace's baseline
 * file holding it, and Home counting the open findings that are left.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { TmuxPane } from '../helpers/tmux.js';
import { auditWorkspaceDir, LEAKY_IMAGE_ID, serbiaEpisode } from '../tui/audit-workspace.js';

const panes: TmuxPane[] = [];
afterEach(() => panes.splice(0).forEach((p) => p.kill()));

describe('the Audit screen in a real terminal', () => {
  it('goes Home -> Audit -> a finding -> accept with a reason, and the baseline file has it', async () => {
    const home = await auditWorkspaceDir([serbiaEpisode('ep-leak', true)]);
    const pane = new TmuxPane([process.execPath, BIN], { GEOLAB_HOME: home, TERM: 'xterm-256color' });
    panes.push(pane);
    await pane.waitFor((s) => s.includes('Audit      not run yet') && s.includes('Watch a model'));
    pane.send(['a']);
    const audit = await pane.waitFor('2 findings (2 open, 2 high, 0 accepted)');
    expect(audit).toContain(`› ep-leak turn 2  "${LEAKY_IMAGE_ID}"`);
    pane.send(['a']);
    await pane.waitFor('because:');
    pane.send(['an id anyone can see on the map'], true);
    await pane.waitFor('because: an id anyone can see on the map');
    pane.send(['Enter']);
    await pane.waitFor('2 findings (1 open, 1 high, 1 accepted)');
    const baseline = JSON.parse(readFileSync(join(home, 'audit-baseline.json'), 'utf8')) as { accepted: { id: string; reason: string; by: string }[] };
    expect(baseline.accepted).toEqual([expect.objectContaining({ reason: 'an id anyone can see on the map' })]);
    expect(baseline.accepted[0]!.id).toMatch(/^[0-9a-f]{8,64}$/);
    pane.send(['q']);
    await pane.waitFor('Audit      1 open finding: 1 high (last run 4 prompts');
    pane.send(['q']);
  });
});
