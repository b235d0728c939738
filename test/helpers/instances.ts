import { startNginx, type TestNginx } from './nginx.js';
import { freePort } from './ports.js';
import { scaleDeployment, scaleServersMissing } from './scale.js';
import { ALLOWED_ORIGIN, type ChildService, spawnService } from './service.js';

/**
 * Decides before any test runs whether the real servers of the scale deployment can be had
 * (CI=true: must): the reason to skip, or null (`scaleServersMissing`: the run's shared
 * servers when it started them).
 */
export const missingScaleServers = scaleServersMissing;

export interface Ports {
  api: number;
  cdn: number;
}

/** Instances of the service sharing one deployment, behind one nginx. */
export interface Instances {
  /** What every instance is started with (the deployment's, the balancer's, the test's). */
  env: Record<string, string>;
  nginx: TestNginx;
  /** Each instance's own ports, by index. */
  ports: Ports[];
  /** The processes, by index; a test that restarts one puts the new one in its place. */
  instances: ChildService[];
  /** What the bucket holds. */
  stored: () => Promise<string[]>;
  /** Starts (again) the instance of index `index`, on its ports; does not put it in `instances`. */
  start(index: number): Promise<ChildService>;
  /** The API of instance `index` directly, not through nginx. */
  direct(index: number): string;
  /** The CDN of instance `index` directly. */
  directCdn(index: number): string;
  /** Kills every instance and stops nginx. */
  stop(): Promise<void>;
}

/**
 * The scale deployment for real, as the tests of many instances need it: a fresh PostgreSQL
 * database and bucket (`scaleDeployment`), `count` instances as processes of their own on
 * them, started together (migrations, the signing secret and the default project must
 * agree), behind nginx (round robin), which is the one proxy hop they trust. `env` adds to
 * (or overrides) what every instance is started with.
 */
export async function startInstances(env: Record<string, string>, count = 2): Promise<Instances> {
  const deployment = await scaleDeployment([ALLOWED_ORIGIN]);
  const ports: Ports[] = [];
  for (let index = 0; index < count; index++) {
    ports.push({ api: await freePort(), cdn: await freePort() });
  }
  const balancer = await startNginx(
    ports.map((port) => ({ api: `127.0.0.1:${port.api}`, cdn: `127.0.0.1:${port.cdn}` })),
  );
  if ('skip' in balancer) throw new Error(balancer.skip);
  const nginx = balancer;
  const shared = {
    ...deployment.env,
    FILEHOST_ALLOWED_ORIGINS: ALLOWED_ORIGIN,
    FILEHOST_API_URL: nginx.apiUrl,
    FILEHOST_CDN_URL: nginx.cdnUrl,
    FILEHOST_TRUST_PROXY: '1',
    ...env,
  };
  const portsOf = (index: number): Ports => {
    const port = ports[index];
    if (!port) throw new Error(`No instance ${index}`);
    return port;
  };
  const start = (index: number) =>
    spawnService({
      ...shared,
      FILEHOST_API_PORT: String(portsOf(index).api),
      FILEHOST_CDN_PORT: String(portsOf(index).cdn),
    });
  const instances: ChildService[] = [];
  const started = await Promise.allSettled(ports.map((_, index) => start(index)));
  for (const outcome of started) if (outcome.status === 'fulfilled') instances.push(outcome.value);
  const failed = started.find((outcome) => outcome.status === 'rejected');
  if (failed) {
    // The ones that did start are stopped too: left running, they keep the test's process alive.
    for (const instance of instances) instance.process.kill('SIGKILL');
    await nginx.stop();
    throw failed.reason;
  }
  return {
    env: shared,
    nginx,
    ports,
    instances,
    stored: deployment.stored,
    start,
    direct: (index) => `http://127.0.0.1:${portsOf(index).api}`,
    directCdn: (index) => `http://127.0.0.1:${portsOf(index).cdn}`,
    async stop() {
      for (const instance of instances) instance.process.kill('SIGKILL');
      await nginx.stop();
    },
  };
}
