import { ConfigError, loadConfig, parseRole } from './config.ts';
import { createLogger } from './logger.ts';
import { DEMO_TENANT, startPlatform } from './platform.ts';

/** The process entrypoint: `npm start` (all roles) or `--role api|projections|ingest` against real engines. */
async function main() {
  const config = loadConfig();
  const role = parseRole(process.argv.slice(2));
  const logger = createLogger(config.LOG_LEVEL);
  const platform = await startPlatform(config, { role, logger });

  const lines = [`Device cloud ${role === 'all' ? '' : `(${role}) `}is running.`];
  if (platform.url) lines.push(`  Open ${platform.url}`, `  API docs ${platform.url}/docs`);
  if (platform.generatedAdminPassword)
    lines.push(
      `  System administrator: admin / ${platform.generatedAdminPassword}  (generated now, shown once: set ADMIN_PASSWORD to choose it)`,
    );
  else lines.push('  System administrator: admin (password from ADMIN_PASSWORD or the one printed on first start)');
  if (platform.demo)
    lines.push(
      `  Demo tenant: ${DEMO_TENANT.adminUsername} / ${DEMO_TENANT.adminPassword} (its administrator); demo_operator and demo_auditor have the same password`,
    );
  lines.push('  Stop with Ctrl-C.');
  process.stdout.write(`\n${lines.join('\n')}\n\n`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    await platform.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`Start failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
