/**
 * `PUT /identities/{id}/trace` (reference model-and-policies §8.8): data-flow tracing of an identity for a
 * while. The switch is kept on the identity row with its expiry (`traceUntil`), so that every instance
 * sees it and it ends by itself; the identity detail shows it (`trace`).
 */
import type { Deps } from '../../deps.js';
import { fieldError, notFound } from '../../errors.js';
import type { TraceDetail, TraceSpec } from '../../generated/management-types.js';
import { parseGoDuration } from '../../lib/duration.js';
import { toSet } from '../../lib/json.js';
import { textProblem } from '../../lib/limits.js';
import { iso } from '../../lib/time.js';
import { writeTrace } from './repo.js';

/** `channels` empty or containing `all` means these (§8.8). */
const ALL_CHANNELS = ['establishPath', 'selectPath'];
/** The longest trace accepted: a year (the controller sets no bound; a larger value is a mistake). */
const MAX_DURATION_MS = 365 * 24 * 3_600_000;
const MAX_CHANNELS = 32;

function duration(value: string | null | undefined): number {
  const ms = parseGoDuration((value ?? '').trim());
  if (ms === undefined) throw fieldError('duration', 'duration must be a duration such as 30s, 5m or 1h30m', value ?? null);
  if (ms <= 0) throw fieldError('duration', 'duration must be greater than zero', value);
  if (ms > MAX_DURATION_MS) throw fieldError('duration', 'duration must be at most 8760h', value);
  return Math.ceil(ms);
}

function channels(value: string[] | null | undefined): string[] {
  const given = toSet((value ?? []).map((c) => c.trim()).filter(Boolean));
  if (given.length === 0 || given.includes('all')) return ALL_CHANNELS;
  if (given.length > MAX_CHANNELS) throw fieldError('channels', `channels should have at most ${MAX_CHANNELS} entries`, given);
  for (const c of given) {
    const problem = textProblem(c, 128, 'channels');
    if (problem) throw fieldError('channels', problem, c);
  }
  return given;
}

function traceId(value: string | null | undefined): string {
  const id = (value ?? '').trim();
  if (id === '') return crypto.randomUUID();
  const problem = textProblem(id, 128, 'traceId');
  if (problem) throw fieldError('traceId', problem, id);
  return id;
}

export async function updateIdentityTrace(deps: Deps, identityId: string, spec: TraceSpec): Promise<TraceDetail> {
  if (!spec.enabled) {
    if (!(await writeTrace(deps.db, identityId, { traceId: null, traceUntil: null, traceChannels: null }))) throw notFound('identity', identityId);
    return { enabled: false };
  }
  const until = deps.now() + duration(spec.duration);
  const id = traceId(spec.traceId);
  const traced = channels(spec.channels);
  if (!(await writeTrace(deps.db, identityId, { traceId: id, traceUntil: until, traceChannels: JSON.stringify(traced) }))) throw notFound('identity', identityId);
  return { enabled: true, traceId: id, until: iso(until) };
}
