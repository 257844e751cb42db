/**
 * `npm run admin -- <command>`: operator commands that work on the local store without the API.
 *
 *   reset-password [--username <name>] [--password-stdin]
 *     Sets a new password for the default admin (or for the admin that logs in as <name>), lifts a
 *     lockout and ends that admin's API sessions. The password is read from stdin with
 *     --password-stdin, else from ADMIN_PASSWORD, else generated and printed once.
 *
 * The store is the one `npm start` uses: DATA_DIR (default ./data), or LIBSQL_URL/LIBSQL_AUTH_TOKEN.
 * Running it while the controller serves the same store is safe (see src/recovery/service.ts).
 */
import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createClient } from '@libsql/client';
import { openNodeStore } from '../src/node.js';
import { generatePassword, RecoveryError, resetAdminPassword } from '../src/recovery/service.js';

const USAGE = `usage: npm run admin -- reset-password [--username <name>] [--password-stdin]

  Sets a new password for the default admin (or the admin with that username) on the local store,
  lifts a lockout and ends the admin's API sessions. The password comes from stdin with
  --password-stdin, else from ADMIN_PASSWORD, else a generated one is printed once.
  Store: DATA_DIR (default ./data) or LIBSQL_URL / LIBSQL_AUTH_TOKEN.`;

class UsageError extends Error {}

function parseArgs(argv: string[]): { command: string; username?: string; passwordStdin: boolean } {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') throw new UsageError('');
  if (command !== 'reset-password') throw new UsageError(`unknown command "${command}"`);
  let username: string | undefined;
  let passwordStdin = false;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i];
    if (arg === '--username' || arg === '-u') {
      username = rest[++i];
      if (!username) throw new UsageError('--username needs a value');
    } else if (arg.startsWith('--username=')) {
      username = arg.slice('--username='.length);
    } else if (arg === '--password-stdin') {
      passwordStdin = true;
    } else {
      throw new UsageError(`unknown option "${arg}"`);
    }
  }
  return { command, username, passwordStdin };
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  // One trailing newline is what `echo` and here-strings add; it is not part of the password.
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

async function main(): Promise<number> {
  let args: ReturnType<typeof parseArgs>;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    if (e instanceof UsageError && e.message) console.error(`error: ${e.message}`);
    console.error(USAGE);
    return 2;
  }
  const env = process.env;
  const dataDir = resolve(env.DATA_DIR ?? join(process.cwd(), 'data'));
  const dbFile = join(dataDir, 'controller.db');
  if (!env.LIBSQL_URL && !existsSync(dbFile)) {
    console.error(`error: no store at ${dbFile}: start the controller once (npm start), or set DATA_DIR / LIBSQL_URL`);
    return 1;
  }
  const supplied = args.passwordStdin ? await readStdin() : env.ADMIN_PASSWORD || undefined;
  if (args.passwordStdin && !supplied) {
    console.error('error: --password-stdin read an empty password');
    return 1;
  }
  const password = supplied ?? generatePassword();

  const client = createClient({ url: env.LIBSQL_URL ?? pathToFileURL(dbFile).href, authToken: env.LIBSQL_AUTH_TOKEN });
  try {
    const db = await openNodeStore(client);
    const result = await resetAdminPassword(db, { username: args.username, fallbackUsername: env.ADMIN_USERNAME ?? 'admin', password, now: Date.now() });
    const who = `${result.username} (identity "${result.identityName}", ${result.identityId})`;
    console.log(`${result.createdAuthenticator ? 'created a password login for' : 'new password set for'} ${who}; its API sessions were ended and any lockout lifted`);
    if (!supplied) console.log(`new password: ${password}   (shown once)`);
    return 0;
  } catch (e) {
    if (e instanceof RecoveryError) {
      console.error(`error: ${e.message}`);
      return 1;
    }
    console.error(`error: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  } finally {
    client.close();
  }
}

process.exitCode = await main();
