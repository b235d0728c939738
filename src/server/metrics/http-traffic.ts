import type { Socket } from 'node:net';
import { Counter, type Registry } from 'prom-client';
import { CellHistogram, type HistogramCell } from './histogram-cells.js';

/** Which of the service's two servers answered. */
export type ServerName = 'api' | 'cdn';

/** The route label of a request no route took (a 404, a method no route has). */
export const UNMATCHED_ROUTE = 'unmatched';

/**
 * The methods a label may name; any other (a scanner's `PROPFIND`) is `other`, so a client
 * cannot grow the number of series.
 */
const OTHER_METHOD = 'other';
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * Durations of answers, from the request's arrival to its last byte handed to the
 * connection: a CDN answer from memory takes tens of microseconds, an upload minutes.
 */
export const DURATION_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300,
];

type HttpLabel = 'server' | 'route' | 'method' | 'status';

/**
 * The requests both servers answered: a duration histogram and a request counter per
 * server, route template, method and status, both read from the same cells. The cell of
 * a route, method and status is found by three map lookups of values the request already
 * has; nothing is built per request.
 */
export class HttpTraffic {
  readonly #durations: CellHistogram<HttpLabel>;
  readonly #cells: Record<ServerName, Map<string, Map<string, Map<number, HistogramCell>>>> = {
    api: new Map(),
    cdn: new Map(),
  };

  readonly #countsParserRefusals: boolean;

  /** `countsParserRefusals` false: a bench took that part out (`bench-ablation.ts`). */
  constructor(registers: Registry[], countsParserRefusals = true) {
    this.#countsParserRefusals = countsParserRefusals;
    this.#durations = new CellHistogram({
      name: 'filehost_http_request_duration_seconds',
      help: "Time from a request's arrival to its answer's end, by server (api, cdn), route template, method and status.",
      labelNames: ['server', 'route', 'method', 'status'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    const durations = this.#durations;
    new Counter({
      name: 'filehost_http_requests_total',
      help: 'Requests answered, by server (api, cdn), route template, method and status.',

      labelNames: ['server', 'route', 'method', 'status'],
      registers,
      collect() {
        this.reset();
        for (const { labels, cell } of durations.cells) this.inc(labels, cell.count);
      },
    });
  }

  /** Counts an answer of `server` to `method` on `route` (a template, never a URL). */
  answered(server: ServerName, route: string, method: string, status: number, seconds: number) {
    this.cell(server, route, method, status).observe(seconds);
  }

  /**
   * Counts the answers `server` writes for bytes Node's parser refused (a URL or headers past
   * its limit, malformed framing): route `unmatched`, and a duration of 0, since no request
   * began that the answer could be timed from.
   */
  parserRefusals(server: ServerName): ((status: number, method: string) => void) | undefined {
    if (!this.#countsParserRefusals) return undefined;
    return (status, method) => this.answered(server, UNMATCHED_ROUTE, method, status, 0);
  }

  cell(server: ServerName, route: string, method: string, status: number): HistogramCell {
    const byRoute = this.#cells[server];
    let byMethod = byRoute.get(route);
    if (!byMethod) {
      byMethod = new Map();
      byRoute.set(route, byMethod);
    }
    let byStatus = byMethod.get(method);
    if (!byStatus) {
      if (method !== OTHER_METHOD && !KNOWN_METHODS.has(method))
        return this.cell(server, route, OTHER_METHOD, status);
      byStatus = new Map();
      byMethod.set(method, byStatus);
    }
    let cell = byStatus.get(status);
    if (!cell) {
      cell = this.#durations.cell({ server, route, method, status: String(status) });
      byStatus.set(status, cell);
    }
    return cell;
  }
}

/** Where a socket's count of bytes read stood when its last answer was counted. */
const BYTES_COUNTED = Symbol('filehost.bytesCounted');
type CountedSocket = Socket & { [BYTES_COUNTED]?: number };

/**
 * The bytes read from `socket` since its last answer was counted (request lines, headers
 * and bodies: uploads, mostly), and marks them counted.
 */
export function newBytesRead(socket: Socket | null | undefined): number {
  if (!socket) return 0;
  const counted = socket as CountedSocket;
  const read = socket.bytesRead;
  const fresh = read - (counted[BYTES_COUNTED] ?? 0);
  counted[BYTES_COUNTED] = read;
  return Math.max(fresh, 0);
}
