/**
 * Process groups a test file started (a trainer, an environment server, a served model), killed when
 * the file ends in case an assertion left them running. Pids are reused, and on a machine with
 * pid_max 32768 a whole test run wraps around: a group is killed only while its leader is still the
 * process recorded, known by its start time (docs/reliability.md, "A process geolab did not start is
 * never signalled"), as geolab itself does: a bare pid from a test that ran minutes ago may be
 * another test file's process by now.
 */
import { readProcStat, startTimeOf } from '../../src/processes.js';

interface Launched {
  pid: number;
  start_time?: number;
  env_server?: { pid: number; start_time?: number } | null;
}

export class StartedGroups {
  private readonly groups: { pid: number; startTime: number }[] = [];

  /** A group by its leader; the start time is read now when not given (a leader already gone is not kept). */
  add(pid: number, startTime: number | undefined = startTimeOf(pid)): void {
    if (startTime !== undefined) this.groups.push({ pid, startTime });
  }

  /** The trainer and environment server of a launch record (launch.json, `train launch --json`). */
  addLaunch(record: Launched): void {
    this.add(record.pid, record.start_time);
    if (record.env_server) this.add(record.env_server.pid, record.env_server.start_time);
  }

  /** SIGKILL to each group whose leader is still the recorded process; the others are left alone. */
  killAll(): void {
    for (const { pid, startTime } of this.groups.splice(0)) {
      if (readProcStat(pid)?.startTime !== startTime) continue;
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // ended between the check and the signal
      }
    }
  }
}
