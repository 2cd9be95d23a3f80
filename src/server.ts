import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { openDatabase } from './db/open.ts';
import { jobDefinitions } from './jobs/index.ts';
import { startJobQueue } from './jobs/queue.ts';
import { systemClock } from './lib/clock.ts';
import { runStopSteps, type StopStep } from './lib/stop-steps.ts';
import { createLogger, type Logger } from './logger.ts';

/**
 * Start-up: config → database (embedded or external) → migrations → jobs → app → listen.
 * Each step that starts something pushes how to stop it onto `stopSteps`; shutdown pops them,
 * so it runs backwards: stop accepting and drain requests, stop the jobs, close the pool, stop the
 * embedded cluster. Because the caller owns `stopSteps`, a signal in the middle of start-up stops
 * whatever has started so far.
 */
export async function startServer(config: Config, logger: Logger, stopSteps: StopStep[]) {
  const { url, database } = await openDatabase(config, stopSteps, {
    poolSize: config.databasePoolSize,
    log: (message) => logger.info(message),
    warn: (message) => logger.warn(message),
  });
  const jobs = await startJobQueue({
    url,
    db: database.db,
    logger,
    jobs: jobDefinitions(config, systemClock),
  });
  stopSteps.push({ name: 'job queue', stop: () => jobs.stop(config.shutdownTimeoutMs) });
  const app = await buildApp({ config, database, jobs, logger });
  stopSteps.push({ name: 'HTTP server', stop: () => app.close() });
  await app.listen({ port: config.port, host: config.host });
  return app;
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
  const stopSteps: StopStep[] = [];
  // One shutdown at a time: a signal and a failing start-up step may both ask for it.
  let stopping: Promise<void> | undefined;
  const stopAll = () => {
    stopping ??= (async () => {
      await runStopSteps(stopSteps, config.shutdownTimeoutMs, (details, message) =>
        logger.warn(details, message),
      );
    })();
    return stopping;
  };

  closeWithGrace({ delay: config.shutdownTimeoutMs * 3, logger }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'shutting down after an unexpected error');
    else logger.info({ signal }, 'shutting down');
    await stopAll();
    logger.info('stopped');
  });

  const started = Date.now();
  try {
    await startServer(config, logger, stopSteps);
  } catch (error) {
    logger.fatal({ err: error }, 'start-up failed');
    process.stderr.write(`\nKnowledge Hub could not start: ${(error as Error).message}\n`);
    await stopAll().catch((stopError) =>
      logger.error({ err: stopError }, 'cleanup after failed start-up failed'),
    );
    process.exit(1);
  }
  logger.info({ ms: Date.now() - started }, 'started');
  process.stdout.write(
    `\nKnowledge Hub is running at ${config.appUrl}\nAPI reference: ${config.appUrl}/docs\n\n`,
  );
}

if (import.meta.main) await main();
