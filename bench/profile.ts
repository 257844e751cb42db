/**
 * `--profile`: a CPU profile of the controller while one scenario's load runs alone (no floor slices),
 * written as a `.cpuprofile` (Chrome DevTools, VS Code, speedscope) and summarised: the top functions by
 * self time, and self time by package. On Node the controller runs in the bench process and is profiled
 * through `node:inspector`; on workerd each worker is profiled through its DevTools inspector (Miniflare's
 * inspector proxy), which covers the worker's own JavaScript, not the local D1 behind its binding.
 */
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import WebSocket from 'ws';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
}

export interface ProfileSummary {
  file: string;
  samples: number;
  /** Share of all samples spent outside idle and GC markers. */
  busyShare: number;
  top: { name: string; where: string; selfShare: number }[];
  byPackage: { where: string; selfShare: number }[];
  /** CPU time of the bench process (controller or floor) per request during the profiled run. */
  cpuMicrosPerRequest?: number;
}

/** Where a frame's code lives: a package, a folder of this project, node internals, or a marker. */
function locate(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  const src = url.indexOf('/src/');
  if (src >= 0) return 'src/' + url.slice(src + 5).split('/').slice(0, -1).join('/');
  const bench = url.indexOf('/bench/');
  if (bench >= 0) return 'bench';
  return url.replace(/^file:\/\//, '');
}

/** Starts and stops V8's sampling profiler somewhere: this process, or a worker behind an inspector. */
export interface CpuProfiler {
  start(): Promise<void>;
  stop(): Promise<CpuProfile>;
}

/** 250 µs: enough samples in a few seconds to rank functions of a ~100 µs request. */
const SAMPLING_INTERVAL_US = 250;

/** This process (the Node controller and its floor run in the bench process). */
export function processProfiler(): CpuProfiler {
  const session = new Session();
  return {
    async start() {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US });
      await session.post('Profiler.start');
    },
    async stop() {
      try {
        return ((await session.post('Profiler.stop')) as unknown as { profile: CpuProfile }).profile;
      } finally {
        session.disconnect();
      }
    },
  };
}

/** A V8 isolate behind a DevTools websocket (a workerd worker): the same three Profiler calls over CDP. */
export function inspectorProfiler(url: string): CpuProfiler {
  let socket: WebSocket | undefined;
  let next = 1;
  const pending = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  const call = (method: string, params: Record<string, unknown> = {}): Promise<unknown> =>
    new Promise((resolve, reject) => {
      const id = next++;
      pending.set(id, { resolve, reject });
      socket!.send(JSON.stringify({ id, method, params }));
    });
  return {
    async start() {
      socket = new WebSocket(url);
      socket.on('message', (data: WebSocket.RawData) => {
        const message = JSON.parse(String(data)) as { id?: number; result?: unknown; error?: { message: string } };
        const waiter = message.id === undefined ? undefined : pending.get(message.id);
        if (!waiter) return;
        pending.delete(message.id!);
        if (message.error) waiter.reject(new Error(`${url}: ${message.error.message}`));
        else waiter.resolve(message.result);
      });
      await new Promise<void>((resolve, reject) => socket!.once('open', () => resolve()).once('error', reject));
      await call('Profiler.enable');
      await call('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US });
      await call('Profiler.start');
    },
    async stop() {
      try {
        return ((await call('Profiler.stop')) as { profile: CpuProfile }).profile;
      } finally {
        socket?.close();
      }
    },
  };
}

export async function profiled<T>(file: string, work: () => Promise<T>, profiler: CpuProfiler = processProfiler()): Promise<{ result: T; summary: ProfileSummary }> {
  await profiler.start();
  let result: T;
  let profile: CpuProfile;
  try {
    result = await work();
  } finally {
    profile = await profiler.stop();
  }
  writeFileSync(file, JSON.stringify(profile));
  return { result, summary: summarise(file, profile) };
}

function summarise(file: string, profile: CpuProfile): ProfileSummary {
  const total = profile.nodes.reduce((n, node) => n + (node.hitCount ?? 0), 0) || 1;
  const idle = profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').reduce((n, node) => n + (node.hitCount ?? 0), 0);
  const byFunction = new Map<string, { name: string; where: string; hits: number }>();
  const byPackage = new Map<string, number>();
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    if (!hits || node.callFrame.functionName === '(idle)') continue;
    const where = locate(node.callFrame.url, node.callFrame.functionName);
    const name = node.callFrame.functionName || '(anonymous)';
    const key = `${name}@${node.callFrame.url}:${node.callFrame.lineNumber}`;
    const entry = byFunction.get(key) ?? { name, where: `${where}:${node.callFrame.lineNumber + 1}`, hits: 0 };
    entry.hits += hits;
    byFunction.set(key, entry);
    byPackage.set(where, (byPackage.get(where) ?? 0) + hits);
  }
  const busy = total - idle || 1;
  return {
    file,
    samples: total,
    busyShare: busy / total,
    top: [...byFunction.values()]
      .sort((a, b) => b.hits - a.hits)
      .slice(0, 20)
      .map((e) => ({ name: e.name, where: e.where, selfShare: e.hits / busy })),
    byPackage: [...byPackage.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 15)
      .map(([where, hits]) => ({ where, selfShare: hits / busy })),
  };
}

export function formatSummary(s: ProfileSummary): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  return [
    `profile ${s.file}: ${s.samples} samples, busy ${pct(s.busyShare)}; shares below are of busy time (self)`,
    '  top functions:',
    ...s.top.map((t) => `    ${pct(t.selfShare).padStart(7)}  ${t.name}  (${t.where})`),
    '  by package:',
    ...s.byPackage.map((p) => `    ${pct(p.selfShare).padStart(7)}  ${p.where}`),
  ].join('\n');
}
