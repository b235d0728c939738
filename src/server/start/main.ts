import { runUntilSignal } from './run.js';
import { startService } from './service.js';

/** `npm run server`: the reference service, configured by `FILEHOST_*` variables. */
runUntilSignal(async (config) => {
  const service = await startService(config);
  const { project, secretKey, publishableKey } = service.defaultProject;
  console.log(
    [
      'filehost is ready',
      `  API              ${service.apiUrl}`,
      `  CDN              ${service.cdnUrl}`,
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
  return { stop: () => service.close() };
});
