/**
 * The JavaScript heap of a short batch command. V8 starts the young generation at 1 MiB a
 * semi-space and doubles it while much of what it holds survives a scavenge, up to 16 MiB: 32 MiB
 * of pages, each touched for the first time as the space grows. On the machines geolab is measured
 * on a first touch costs about 2.8 ms a MiB (a page fault for every 4 KiB), so `geolab audit` over
 * 882 prompts spent some 80 ms on a young generation that a long-running process (the TUI, a
 * server, a sweep) would pay once and then gain from. A command that reads, works and exits keeps
 * it small instead: more scavenges, each of a small space, and 30 MiB less memory touched
 * (docs/budgets.md, "Memory touched").
 */
import { setFlagsFromString } from 'node:v8';

/** From now on the young generation stays the size it is (1 or 2 MiB a semi-space at start-up). */
export function keepYoungGenerationSmall(): void {
  // Read by V8 each time it would grow the space, so it holds when set after start-up.
  setFlagsFromString('--semi-space-growth-factor=1');
}
