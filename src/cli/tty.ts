/** Whether the TUI can run here: both ends a terminal, and not forced off. */
export function canDrawTui(): boolean {
  return Boolean(process.stdin.isTTY && process.stdout.isTTY);
}
