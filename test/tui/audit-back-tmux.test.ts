/**
 * Esc in the Audit screen's explained list, through the real binary in a real terminal (tmux): it
 * goes back to the findings, as the list's hint says, and only a second esc leaves for Home.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { TmuxPane } from '../helpers/tmux.js';
import { auditWorkspaceDir, LEAKY_IMAGE_ID, pinnedEpisode, serbiaEpisode } from './audit-workspace.js';

const panes: TmuxPane[] = [];
afterEach(() => panes.splice(0).forEach((p) => p.kill()));

describe('the Audit screen’s explained list in a real terminal', () => {
  it('esc returns from the explained list to the findings; esc on the findings goes Home', async () => {
    const home = await auditWorkspaceDir([serbiaEpisode('ep-leak', true), pinnedEpisode('ep-pin')]);
    const pane = new TmuxPane([process.execPath, BIN], { GEOLAB_HOME: home, TERM: 'xterm-256color' });
    panes.push(pane);
    await pane.waitFor((s) => s.includes('Audit      not run yet') && s.includes('Watch a model'));
    pane.send(['a']);
    await pane.waitFor((s) => s.includes('2 findings (2 open') && s.includes('e: list them'));

    pane.send(['e']);
    const explained = await pane.waitFor('e or esc: back to the findings');
    expect(explained).toContain('ep-pin turn 2 "Serbia"');
    expect(explained).not.toContain(`ep-leak turn 2  "${LEAKY_IMAGE_ID}"`);

    pane.send(['Escape']);
    const findings = await pane.waitFor((s) => s.includes('e: list them') && s.includes(`› ep-leak turn 2  "${LEAKY_IMAGE_ID}"`));
    expect(findings).toContain('AUDIT ·');
    expect(findings).not.toContain('Watch a model');

    pane.send(['Escape']);
    await pane.waitFor((s) => s.includes('Watch a model') && !s.includes('AUDIT ·'));
    pane.send(['q']);
  });
});
