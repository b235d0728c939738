import { existsSync } from 'node:fs';
import { configFromEnv, describeStartError } from './config.js';
import { startService } from './service.js';

/** `npm run server`: the reference service, configured by `FILEHOST_*` variables. */
async function main(): Promise<void> {
  // A `.env` file in the working directory is read as an extra; real variables win.
  if (existsSync('.env')) process.loadEnvFile('.env');
  const config = configFromEnv();
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
    ].join('\n'),
  );

  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    console.log(`\n${signal}: stopping filehost…`);
    await service.close();
    console.log('filehost stopped');
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(describeStartError(error));
  process.exit(1);
});
