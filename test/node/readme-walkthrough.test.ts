/**
 * The README's "Five minutes with curl", run as written: the shell blocks between the walkthrough
 * markers, in order, in one bash session, against a controller started on a random port. Only the two
 * assignments the reader is told to fill in (ZITI and PASSWORD) are replaced.
 */
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startController, type NodeController } from '../../src/node.js';

const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const PASSWORD = 'walkthrough-admin-password';
const STEP = '@@step@@';

/** The ```sh blocks between the walkthrough markers. */
function walkthroughBlocks(): string[] {
  const begin = readme.indexOf('<!-- walkthrough:begin');
  const end = readme.indexOf('<!-- walkthrough:end -->');
  if (begin < 0 || end < begin) throw new Error('README.md has no walkthrough markers');
  return [...readme.slice(begin, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
}

/** The lines of a step that are not JSON, then the JSON documents curl printed back to back. */
function split(output: string): { text: string[]; json: any[] } {
  const text: string[] = [];
  const json: any[] = [];
  let i = 0;
  while (i < output.length) {
    if (output[i] === '{') {
      // Find the end of this document: braces outside strings.
      let depth = 0;
      let inString = false;
      let j = i;
      for (; j < output.length; j++) {
        const ch = output[j];
        if (inString) {
          if (ch === '\\') j++;
          else if (ch === '"') inString = false;
        } else if (ch === '"') inString = true;
        else if (ch === '{') depth++;
        else if (ch === '}' && --depth === 0) break;
      }
      json.push(JSON.parse(output.slice(i, j + 1)));
      i = j + 1;
    } else {
      const nl = output.indexOf('\n', i);
      const end = nl < 0 ? output.length : nl;
      const line = output.slice(i, end).trim();
      if (line) text.push(line);
      i = end + 1;
    }
  }
  return { text, json };
}

function bash(script: string, cwd: string): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', script], { cwd, timeout: 60_000 }, (error, out, err) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, out, err }));
  });
}

describe('the README walkthrough', () => {
  let dir: string;
  let work: string;
  let controller: NodeController;
  let steps: string[];
  let run: { code: number; out: string; err: string };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ziti-readme-'));
    work = mkdtempSync(join(tmpdir(), 'ziti-readme-cwd-'));
    controller = await startController({ DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', ADMIN_PASSWORD: PASSWORD }, { logger: quiet });
    const blocks = walkthroughBlocks();
    blocks[0] = blocks[0].replace(/^ZITI=.*$/m, `ZITI=https://localhost:${controller.port}`).replace(/^PASSWORD=.*$/m, `PASSWORD='${PASSWORD}'`);
    // Each block is one step; a marker line between them splits the output per step.
    run = await bash(['set -euo pipefail', ...blocks.map((b) => `${b}\necho; echo '${STEP}'`)].join('\n'), work);
    steps = run.out.split(`${STEP}\n`).map((s) => s.trim());
  });
  afterAll(async () => {
    await controller?.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  it('has its steps, and they all run', () => {
    expect(walkthroughBlocks()).toHaveLength(6);
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    expect(steps).toHaveLength(7); // six steps and what follows the last marker
  });

  it('1-2: fetches the CA bundle whose root matches the controller, then verifies TLS with it', () => {
    const [setup, trust] = steps.slice(0, 2);
    expect(setup).toBe('');
    const { text, json } = split(trust);
    // The banner prints the same SHA-256 fingerprint.
    expect(text).toEqual([`sha256 Fingerprint=${new X509Certificate(controller.bootstrap.pki.root.pem).fingerprint256}`]);
    expect(json[0].data.version).toBe('v1.6.2');
    expect(json[1].data.healthy).toBe(true);
  });

  it('3: logs in and uses the zt-session token', () => {
    const { text, json } = split(steps[2]);
    expect(text).toHaveLength(1);
    expect(text[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(json[0].data).toMatchObject({ name: 'Default Admin', isAdmin: true, isDefaultAdmin: true });
  });

  it('4: creates the identity with a one-time-token enrollment whose JWT a device can enroll with', () => {
    const [created, enrollments] = split(steps[3]).json;
    expect(created.data.id).toMatch(/^[0-9A-Za-z._-]+$/);
    expect(created.data._links.self.href).toBe(`./identities/${created.data.id}`);
    const ott = enrollments.data.find((e: { identityId: string }) => e.identityId === created.data.id);
    expect(ott).toMatchObject({ method: 'ott', identityId: created.data.id });
    expect(ott.jwt.split('.')).toHaveLength(3);
  });

  it('5: lists it with a filter', () => {
    const [list] = split(steps[4]).json;
    expect(list.data).toHaveLength(1);
    expect(list.data[0]).toMatchObject({ name: 'laptop', roleAttributes: ['staff'], typeId: 'Default' });
    expect(list.meta.pagination.totalCount).toBe(1);
  });

  it('6: logs out, after which the token is refused', () => {
    expect(steps[5].split('\n')).toEqual(['200', '401']);
  });
});
