import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

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

function canListen(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A port nothing listens on right now, for a process the test starts later on it. Taken
 * below the kernel's ephemeral range: a port the kernel picked (as it does for `listen(0)`)
 * would be free only until the kernel hands it out again, to another test's server or to
 * an outgoing connection's local end, before the process the port was for binds it
 * (a fresh-clone CI run lost a test that way: "Port … is already in use").
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = LOWEST + Math.floor(Math.random() * (HIGHEST - LOWEST));
    if (await canListen(port)) return port;
  }
  throw new Error(`No free TCP port between ${LOWEST} and ${HIGHEST}`);
}
