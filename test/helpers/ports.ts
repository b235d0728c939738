import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isRunning } from './process-tree.js';

/**
 * The lowest port of the kernel's ephemeral range: what it hands out for a `listen(0)` and
 * as the local port of every outgoing connection.
 */
function ephemeralLow(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/);
    const port = Number(low);
    return Number.isInteger(port) && port > 12_000 ? port : 32_768;
  } catch {
    return 32_768;
  }
}

const HIGHEST = ephemeralLow() - 1;
const LOWEST = HIGHEST - 10_000;

/**
 * Ports this process has handed out, each with a file under RESERVED naming its pid. Test
 * files run as concurrent processes: a port one of them picked is free until the service it
 * was for binds it, seconds later, and another process picking the same number meanwhile
 * would find it free too (a fresh-clone CI run lost `tokens-at-scale` that way).
 */
const RESERVED = join(tmpdir(), 'filehost-test-ports');
const handedOut = new Set<number>();

/** Claims `port` for this process unless a live process holds it; a dead one's claim is stale. */
function reserve(port: number): boolean {
  if (handedOut.has(port)) return false;
  const file = join(RESERVED, String(port));
  for (let tries = 0; tries < 2; tries++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      if (handedOut.size === 0) process.once('exit', releaseAll);
      handedOut.add(port);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      let holder = Number.NaN;
      try {
        holder = Number(readFileSync(file, 'utf8'));
      } catch {
        // Released between our write and our read: try again.
      }
      if (Number.isInteger(holder) && holder > 0 && isRunning(holder)) return false;
      try {
        unlinkSync(file);
      } catch {
        // Another process removed the stale claim first; whoever writes next wins.
      }
    }
  }
  return false;
}

function releaseAll(): void {
  for (const port of handedOut) {
    try {
      unlinkSync(join(RESERVED, String(port)));
    } catch {
      // Already gone.
    }
  }
}

function canListen(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A port nothing listens on right now, for a process the test starts later on it, and that
 * no other test process is handed while this one lives. Taken below the kernel's ephemeral
 * range: a port the kernel picked (as it does for `listen(0)`) would be free only until the
 * kernel hands it out again, to another test's server or to an outgoing connection's local
 * end, before the process the port was for binds it.
 */
export async function freePort(): Promise<number> {
  mkdirSync(RESERVED, { recursive: true });
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (HIGHEST - LOWEST));
    if (!reserve(port)) continue;
    if (await canListen(port)) return port;
  }
  throw new Error(`No free TCP port between ${LOWEST} and ${HIGHEST}`);
}
