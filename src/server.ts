import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { connectDatabase } from './db/client.ts';
import { startEmbeddedPostgres } from './db/embedded.ts';
import { runMigrations } from './db/migrate.ts';
import { jobDefinitions } from './jobs/index.ts';
import { startJobQueue } from './jobs/queue.ts';
import { createLogger, type Logger } from './logger.ts';

/**
 * Start-up: config → database (embedded or external) → migrations → jobs → app → listen.
 * Shutdown runs the same steps backwards: stop accepting and drain requests, stop the jobs,
 * close the pool, stop the embedded cluster.
 */
export async function startServer(config: Config, logger: Logger) {
  const cleanup: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const step of cleanup.reverse()) await step();
  };
  try {
    let url = config.databaseUrl;
    if (!url) {
      const embedded = await startEmbeddedPostgres({
        dataDir: config.dataDir,
        port: config.embeddedPgPort,
        log: (message) => logger.info(message),
      });
      cleanup.push(() => embedded.stop());
      url = embedded.url;
    }
    await runMigrations(url);
    const database = connectDatabase(url, { max: config.databasePoolSize });
    cleanup.push(() => database.close());
    const jobs = await startJobQueue({ url, db: database.db, logger, jobs: jobDefinitions });
    cleanup.push(() => jobs.stop(config.shutdownTimeoutMs));
    const app = await buildApp({ config, database, jobs, logger });
    cleanup.push(() => app.close());
    await app.listen({ port: config.port, host: config.host });
    return { app, stop };
  } catch (error) {
    await stop().catch((stopError) =>
      logger.error({ err: stopError }, 'cleanup after failed start-up failed'),
    );
    throw error;
  }
}

async function main() {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  const started = Date.now();
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer(config, logger);
  } catch (error) {
    logger.fatal({ err: error }, 'start-up failed');
    process.stderr.write(`\nKnowledge Hub could not start: ${(error as Error).message}\n`);
    process.exit(1);
  }
  logger.info({ ms: Date.now() - started }, 'started');
  process.stdout.write(
    `\nKnowledge Hub is running at ${config.appUrl}\nAPI reference: ${config.appUrl}/docs\n\n`,
  );

  closeWithGrace({ delay: config.shutdownTimeoutMs * 3, logger }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'shutting down after an unexpected error');
    else logger.info({ signal }, 'shutting down');
    await server.stop();
    logger.info('stopped');
  });
}

if (import.meta.main) await main();
