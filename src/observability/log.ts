import type { Logger } from '../deps.js';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

/** `ZITI_LOG_LEVEL`: debug, info (default), warn, error or silent; anything else is a configuration error. */
export function parseLogLevel(value: string | undefined): LogLevel {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '') return 'info';
  if ((LOG_LEVELS as readonly string[]).includes(v)) return v as LogLevel;
  throw new Error(`ZITI_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${value}"`);
}

export interface LeveledLogger extends Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  readonly level: LogLevel;
}

/**
 * One JSON object per line on stdout/stderr: what `docker logs`, journald and Workers Logs all index.
 * Lines below `level` are dropped before any string is built.
 */
export function jsonLogger(level: LogLevel, write: (line: string, isError: boolean) => void = defaultWrite): LeveledLogger {
  const min = RANK[level];
  const emit = (l: Exclude<LogLevel, 'silent'>, message: string, fields?: Record<string, unknown>) => {
    if (RANK[l] < min) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: l, message, ...fields }), RANK[l] >= RANK.warn);
  };
  return {
    level,
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  };
}

function defaultWrite(line: string, isError: boolean): void {
  if (isError) console.error(line);
  else console.log(line);
}
