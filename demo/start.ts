import { parseArgs } from 'node:util';
import { originAllowed } from '../src/server/ground/origins.js';
import { runUntilSignal } from '../src/server/start/run.js';
import { startService } from '../src/server/start/service.js';
import { startDemoServer } from './demo-server.js';
import { startWebhookLog } from './webhook-log.js';

/**
 * The demo is one person's machine: its webhook log listens on loopback, and importing from
 * a server on the same machine is what one tries first. So it allows private targets for
 * both (decisions.md, "Private targets are opt-in"; link-local and metadata addresses stay
 * refused), unless the variables say otherwise, and its banner says so. The service alone
 * (`npm run server`) keeps the safe default.
 */
const privateTargets = {
  importAllowPrivate: process.env.FILEHOST_IMPORT_ALLOW_PRIVATE !== 'false',
  webhookAllowPrivate: process.env.FILEHOST_WEBHOOK_ALLOW_PRIVATE !== 'false',
};

function privateTargetsLine(): string {
  const allowed = [
    ...(privateTargets.importAllowPrivate ? ['imports'] : []),
    ...(privateTargets.webhookAllowPrivate ? ['webhooks'] : []),
  ];
  if (allowed.length === 0) return 'refused (imports and webhooks reach public addresses only)';
  return `allowed for ${allowed.join(' and ')}: they may reach this machine and its network (a demo setting; a server on the internet keeps FILEHOST_IMPORT_ALLOW_PRIVATE and FILEHOST_WEBHOOK_ALLOW_PRIVATE off)`;
}

/**
 * `npm start`: the reference service and the demo page in one process. The page gets the
 * API address and the publishable key through Vite's `VITE_*` variables; the secret key
 * is never handed to it. `--webhooks`: the demo's own endpoint hears of every file and prints
 * each event (see webhook-log.ts). `--port N`: the demo page's port instead of 5173 (0: any
 * free one); the default project allows every loopback port.
 */
const options = commandLine();

function commandLine(): { webhooks?: boolean; port?: string } {
  try {
    return parseArgs({ options: { webhooks: { type: 'boolean' }, port: { type: 'string' } } })
      .values;
  } catch (error) {
    console.error(`${(error as Error).message}\nUsage: npm start [-- --port N] [--webhooks]`);
    process.exit(2);
  }
}
const port = options.port === undefined ? undefined : demoPort(options.port);

/** The `--port` value as a port number, or the process ends saying what is wrong. */
function demoPort(raw: string): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value > 65535) {
    console.error(`--port takes a port number (0 to 65535, 0 for any free one), not "${raw}".`);
    process.exit(2);
  }
  return value;
}

runUntilSignal(async (config) => {
  const webhooks = options.webhooks ? await startWebhookLog() : null;
  const service = await startService({
    ...config,
    ...privateTargets,
    ...(webhooks ? { webhookUrl: webhooks.url, webhookSecret: webhooks.secret } : {}),
  });
  const { project, publishableKey, secretKey } = service.defaultProject;
  process.env.VITE_FILEHOST_API_URL = service.apiUrl;
  process.env.VITE_FILEHOST_PUBLISHABLE_KEY = publishableKey;

  const vite = await startDemoServer({ dataDir: config.dataDir, port });
  const demoUrl = vite.resolvedUrls?.local[0] ?? 'http://localhost:5173/';
  const demoOrigin = new URL(demoUrl).origin;
  console.log(
    [
      '',
      `  Demo             ${demoUrl}   <- open this`,
      '',
      `  API              ${service.apiUrl}`,
      `  CDN              ${service.cdnUrl}`,
      `  Data             ${config.dataDir}`,
      `  Project          ${project.id} (${project.plan} plan)`,
      `  Publishable key  ${publishableKey}`,
      `  Secret key       ${secretKey}   (server-side only: never put it in a web page)`,
      ...(webhooks
        ? [`  Webhooks         ${webhooks.url}   (events are printed below as they arrive)`]
        : []),
      `  Private targets  ${privateTargetsLine()}`,
      '',
      'Press Ctrl+C to stop.',
    ].join('\n'),
  );
  if (!originAllowed(project.allowedOrigins, demoOrigin)) {
    console.warn(
      `\nWarning: ${demoOrigin} is not among the project's allowed origins (${project.allowedOrigins.join(', ')}); the demo's requests will be refused with origin_not_allowed.`,
    );
  }

  return {
    stop: async () => {
      await vite.close();
      await service.close();
      await webhooks?.close();
    },
  };
});
