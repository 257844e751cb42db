/**
 * Everything a run leaves on disk lives in one directory, /tmp/ziti-bench-<pid>-*, removed at the
 * end. If a run is killed outright (SIGKILL, e.g. by a wrapper's signal relay), the next run removes
 * the directory of any run whose process is gone, and stops the workerd processes that run recorded
 * (by pid and start time, so a reused pid is never touched). Linux /proc only; elsewhere a no-op.
 */
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { log } from './log.js';

const PREFIX = 'ziti-bench-';
const PIDS_FILE = 'workerd.pids';

/** `[comm, ppid, starttime]` of a process, from /proc/<pid>/stat. */
function procStat(pid: number): { comm: string; ppid: number; start: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const rest = stat.slice(close + 2).split(' ');
    // Fields after the command: state(3) ppid(4) ... starttime(22).
    return { comm, ppid: Number(rest[1]), start: rest[19] };
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes what killed runs left behind. */
export function sweepLeftovers(): void {
  for (const name of readdirSync(tmpdir())) {
    const match = new RegExp(`^${PREFIX}(\\d+)-`).exec(name);
    if (!match || alive(Number(match[1]))) continue;
    const dir = join(tmpdir(), name);
    const pidsFile = join(dir, PIDS_FILE);
    if (existsSync(pidsFile)) {
      for (const line of readFileSync(pidsFile, 'utf8').split('\n').filter(Boolean)) {
        const [pid, start] = line.split(' ');
        const stat = procStat(Number(pid));
        if (stat && stat.comm === 'workerd' && stat.start === start) {
          log(`stopping workerd ${pid} left by an interrupted run`);
          process.kill(Number(pid), 'SIGKILL');
        }
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** This run's directory. */
export function createRunDir(): string {
  return mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));
}

/** Records the workerd processes this process started, so that a later run can stop them if need be. */
export function recordWorkerdChildren(runDir: string): void {
  if (!existsSync('/proc')) return;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(Number(entry));
    if (stat && stat.ppid === process.pid && stat.comm === 'workerd') appendFileSync(join(runDir, PIDS_FILE), `${entry} ${stat.start}\n`);
  }
}
