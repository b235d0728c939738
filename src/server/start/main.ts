import { holdTickEntryShape } from './hold-tick-shape.js';
import { runUntilSignal } from './run.js';
import { startService } from './service.js';
import { serviceCommand, serviceUsage } from './usage.js';

/** `npm run server`: the reference service, configured by `FILEHOST_*` variables. */
holdTickEntryShape();
const asked = serviceCommand(process.argv.slice(2));
if (asked === 'help') {
  console.log(serviceUsage());
} else if (asked !== 'start') {
  console.error(`${asked.error}\n\n${serviceUsage()}`);
  process.exitCode = 2;
} else {
  start();
}

function start(): void {
  runUntilSignal(async (config) => {
    const service = await startService(config);
    const { project, secretKey, publishableKey } = service.defaultProject;
    console.log(
      [
        'filehost is ready',
        `  API              ${service.apiUrl}`,
        `  CDN              ${service.cdnUrl}`,
        ...(service.metricsUrl ? [`  Metrics          ${service.metricsUrl}/metrics`] : []),
        `  Data             ${config.dataDir}`,
        `  Project          ${project.id} (${project.plan} plan)`,
        `  Allowed origins  ${project.allowedOrigins.join(', ') || '(none)'}`,
        `  Publishable key  ${publishableKey}`,
        `  Secret key       ${secretKey}   (server-side only: never put it in a web page)`,
        ...(service.webhook
          ? [`  Webhook          ${service.webhook.url}   (secret ${service.webhook.secret})`]
          : []),
      ].join('\n'),
    );
    return { stop: () => service.close(), drainThenClose: service.drainThenClose };
  });
}
