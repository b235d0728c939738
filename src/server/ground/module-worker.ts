import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running the module `name` that sits beside the module at `besideUrl`
 * (its `import.meta.url`). Compiled, the worker's `.js` is started as it is; from the
 * sources (under tsx), the worker first registers tsx's loader itself, which registers on a
 * process's main thread only, and then imports the `.ts`.
 */
export function moduleWorker(besideUrl: string, name: string, options: WorkerOptions): Worker {
  const fromSources = besideUrl.endsWith('.ts');
  const url = new URL(`./${name}.${fromSources ? 'ts' : 'js'}`, besideUrl);
  if (!fromSources) return new Worker(url, options);
  // Resolved here: the worker's eval'd code would resolve a bare name from the working directory.
  const tsx = import.meta.resolve('tsx/esm/api');
  const load = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(load, { ...options, eval: true });
}
