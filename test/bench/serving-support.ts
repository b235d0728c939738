import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** What `bench:serving`'s modes share: the tools they drive, and how a server's CPU is read. */

/** The path of a Debian tool, installed with apt-get when it is missing (root on Debian). */
export function ensure(binary: string, pkg: string): string {
  const path = [`/usr/sbin/${binary}`, `/usr/bin/${binary}`].find((candidate) =>
    existsSync(candidate),
  );
  if (path) return path;
  console.log(`installing ${pkg} (apt-get)…`);
  execFileSync('apt-get', ['install', '-y', '-qq', pkg], { stdio: 'inherit' });
  return ensure(binary, pkg);
}

/**
 * CPU time a process has used so far, in ms (`/proc/<pid>/stat`: utime and stime, in ticks
 * of 10 ms); with `thread`, that thread's alone (the main thread's id is the process's).
 */
export function cpuMs(pid: number, thread?: number): number {
  const path = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
  const stat = readFileSync(path, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A process and its children (nginx's master and its worker). */
export function withChildren(pid: number): number[] {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return [pid, ...(children ? children.split(' ').map(Number) : [])];
}

/** nginx (one worker, no access log) with the given `http` block lines, under `dir`. */
export function startNginx(nginxPath: string, dir: string, http: string) {
  return writeFile(
    join(dir, 'nginx.conf'),
    `daemon off; worker_processes 1; pid ${join(dir, 'nginx.pid')}; error_log ${join(dir, 'error.log')};
events { worker_connections 1024; }
http { access_log off; keepalive_requests 100000;
${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((name) => `  ${name}_temp_path ${join(dir, `${name}_temp`)};`).join('\n')}
${http}
}`,
  ).then(async () => {
    const child = spawn(nginxPath, ['-c', join(dir, 'nginx.conf'), '-p', dir], {
      stdio: 'ignore',
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode})`);
    return child;
  });
}
