/**
 * Worker bundles: `wrangler deploy --dry-run --outdir` builds exactly what a deploy would upload.
 * Its size (raw and gzip, source maps excluded) is one of the benchmark's figures, and the built
 * files are what workerd runs in the benchmark.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

export interface BundleFigures {
  /** Main module and any other uploaded modules, source maps excluded. */
  files: { name: string; bytes: number; gzipBytes: number }[];
  bytes: number;
  gzipBytes: number;
  minify: boolean;
}

export interface BuiltWorker extends BundleFigures {
  dir: string;
  main: string;
}

/** Runs wrangler without prompts, telemetry or colour; output is kept and shown only on failure. */
export function wrangler(args: string[], cwd: string, timeoutMs = 120_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['wrangler', ...args], {
      cwd,
      // No banner (it checks npm for updates) and no telemetry: the build needs no network.
      env: { ...process.env, CI: 'true', WRANGLER_SEND_METRICS: 'false', WRANGLER_HIDE_BANNER: 'true', NO_COLOR: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`wrangler ${args.join(' ')} failed (${code}):\n${out.slice(-2000)}`));
    });
  });
}

/** Builds the worker of `config` into `outdir` and measures it. */
export async function buildWorker(projectRoot: string, config: string, outdir: string, minify = false): Promise<BuiltWorker> {
  await wrangler(['deploy', '--dry-run', '--config', config, '--outdir', outdir, ...(minify ? ['--minify'] : [])], projectRoot);
  const files = readdirSync(outdir)
    .filter((name) => /\.(m?js|wasm|bin|txt|html|sql)$/.test(name))
    .map((name) => {
      const content = readFileSync(join(outdir, name));
      return { name, bytes: content.length, gzipBytes: gzipSync(content, { level: 9 }).length };
    });
  const main = files.find((f) => /\.m?js$/.test(f.name));
  if (!main) throw new Error(`wrangler produced no JavaScript module in ${outdir}`);
  return {
    dir: outdir,
    main: join(outdir, main.name),
    files,
    bytes: files.reduce((n, f) => n + f.bytes, 0),
    gzipBytes: files.reduce((n, f) => n + f.gzipBytes, 0),
    minify,
  };
}
