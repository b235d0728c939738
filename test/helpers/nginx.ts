import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDebianPackages, unavailable } from './debian-packages.js';
import { freePort } from './ports.js';

const NGINX = '/usr/sbin/nginx';

export interface TestNginx {
  apiUrl: string;
  cdnUrl: string;
  stop(): Promise<void>;
}

export function nginxAvailable(): { skip: string } | null {
  if (ensureDebianPackages(['nginx-light'], () => existsSync(NGINX), { noRecommends: true })) {
    return null;
  }
  return unavailable('nginx', 'apt-get install -y nginx-light');
}

/**
 * The load balancer of docs/running-at-scale.md (same proxy settings), in front of
 * `instances` (host:port of each instance's API and CDN), round robin, on loopback.
 */
export async function startNginx(
  instances: { api: string; cdn: string }[],
): Promise<TestNginx | { skip: string }> {
  const missing = nginxAvailable();
  if (missing) return missing;
  const dir = await mkdtemp(join(tmpdir(), 'filehost-nginx-'));
  await mkdir(join(dir, 'logs'));
  const apiPort = await freePort();
  const cdnPort = await freePort();
  const config = nginxConfig({
    apiListen: `127.0.0.1:${apiPort}`,
    cdnListen: `127.0.0.1:${cdnPort}`,
    apiUpstreams: instances.map((instance) => instance.api),
    cdnUpstreams: instances.map((instance) => instance.cdn),
    prefix: dir,
    workers: 1,
  });
  await writeFile(join(dir, 'nginx.conf'), config);
  const { stop } = await runNginx(dir, () =>
    fetch(`http://127.0.0.1:${apiPort}/nginx-health`).then(
      (response) => response.status === 204,
      () => false,
    ),
  );
  return { apiUrl: `http://127.0.0.1:${apiPort}`, cdnUrl: `http://127.0.0.1:${cdnPort}`, stop };
}

/**
 * An nginx configuration for N identical instances. What matters for filehost: bodies
 * stream through unbuffered and unlimited (the service enforces its own limits), answers
 * stream back (CDN ranges, large files), and `X-Forwarded-For` carries the client's address
 * for the rate limit (`FILEHOST_TRUST_PROXY=1` trusts exactly this one hop).
 */
export function nginxConfig(options: {
  apiListen: string;
  cdnListen: string;
  apiUpstreams: string[];
  cdnUpstreams: string[];
  /** Where nginx keeps its pid, logs and temp files (tests only; omit for a system nginx). */
  prefix?: string;
  /** Worker processes: `auto` (one per core) unless told. */
  workers?: number | 'auto';
}): string {
  const paths = options.prefix
    ? [`pid ${options.prefix}/nginx.pid;`, `error_log ${options.prefix}/logs/error.log warn;`].join(
        '\n',
      )
    : '';
  const temp = options.prefix
    ? ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
        .map((name) => `  ${name}_temp_path ${options.prefix}/${name}_temp;`)
        .join('\n')
    : '';
  const servers = (list: string[]) =>
    list.map((address) => `    server ${address} max_fails=1 fail_timeout=10s;`).join('\n');
  return `worker_processes ${options.workers ?? 'auto'};
${paths}
events { worker_connections 1024; }

http {
  access_log off;
${temp}
  upstream filehost_api {
${servers(options.apiUpstreams)}
    keepalive 16;
  }
  upstream filehost_cdn {
${servers(options.cdnUpstreams)}
    keepalive 16;
  }

  # HTTP/1.1 with kept-alive connections to the instances: nginx's default (HTTP/1.0,
  # a new connection per request) costs a handshake per request. nginx keeps an idle one
  # 60 s (upstream keepalive_timeout); behind a trusted proxy an instance keeps it 72 s, so
  # nginx closes first and never sends a POST on a connection the instance is closing.
  proxy_http_version 1.1;
  proxy_set_header Connection "";
  proxy_set_header Host $http_host;
  proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
  proxy_set_header X-Forwarded-Proto $scheme;
  # Uploads stream to the service as they arrive; it enforces its own size limits.
  client_max_body_size 0;
  proxy_request_buffering off;
  proxy_buffering off;
  proxy_read_timeout 120s;
  proxy_send_timeout 120s;
  # An instance that is down, or stopping (past its drain: service.md, "Stopping without
  # loss"), refuses the connection: the request goes to the next one, nothing of it sent,
  # and the refusing one is left out for fail_timeout. A request an instance failed once it
  # was sent is not re-sent (it may have been an upload that already began).
  proxy_next_upstream error timeout;
  # The instances see only this proxy's address, so connections per client are capped here.
  limit_conn_zone $binary_remote_addr zone=per_client:10m;
  limit_conn per_client 256;
  limit_conn_status 429;

  server {
    listen ${options.apiListen};
    location = /nginx-health { return 204; }
    location / { proxy_pass http://filehost_api; }
  }
  server {
    listen ${options.cdnListen};
    location / { proxy_pass http://filehost_cdn; }
  }
}
`;
}

/**
 * nginx serving the files of `root` as a plain static web server on loopback (a remote
 * server to import from, as fast as a real one can send).
 */
export async function startStaticNginx(
  root: string,
): Promise<{ url: string; stop(): Promise<void> } | { skip: string }> {
  const missing = nginxAvailable();
  if (missing) return missing;
  const dir = await mkdtemp(join(tmpdir(), 'filehost-nginx-static-'));
  await mkdir(join(dir, 'logs'));
  const port = await freePort();
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((name) => `  ${name}_temp_path ${dir}/${name}_temp;`)
    .join('\n');
  await writeFile(
    join(dir, 'nginx.conf'),
    `worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/logs/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
${temp}
  sendfile on;
  tcp_nopush on;
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:${port};
    root ${root};
  }
}
`,
  );
  const { stop } = await runNginx(dir, () =>
    fetch(`http://127.0.0.1:${port}/`).then(
      () => true,
      () => false,
    ),
  );
  return { url: `http://127.0.0.1:${port}`, stop };
}

/**
 * nginx in the foreground with `dir` as its prefix (its `nginx.conf` written there, its error
 * log in `dir/logs`), once `ready` answers true; thrown at, with what it said, when it exits
 * or is not ready within 10 s. `stop` ends it and removes `dir`.
 */
async function runNginx(
  dir: string,
  ready: () => Promise<boolean>,
): Promise<{ stop(): Promise<void> }> {
  const child: ChildProcess = spawn(
    NGINX,
    ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', 'daemon off;'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let errors = '';
  child.stderr?.on('data', (chunk) => {
    errors += chunk;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!(await ready())) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      const log = await readFile(join(dir, 'logs', 'error.log'), 'utf8').catch(() => '');
      throw new Error(`nginx did not start: ${errors}${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    async stop() {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
