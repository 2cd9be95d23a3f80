import { parseArgs } from 'node:util';
import { buildApp } from '../../src/app.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/open.ts';
import { jobDefinitions } from '../../src/jobs/index.ts';
import { startJobQueue } from '../../src/jobs/queue.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { runStopSteps, type StopStep } from '../../src/lib/stop-steps.ts';
import { createLogger } from '../../src/logger.ts';
import { seed, thingsToTry } from './seed.ts';

/**
 * `npm run seed [-- --qmsum DIR [--limit N]]`: loads the demo library into the database the service
 * uses (DATABASE_URL, or the embedded cluster under DATA_DIR). The service need not run; while it
 * runs on the same DATA_DIR, the embedded cluster cannot start and this says so.
 */

async function main() {
  const { values } = parseArgs({
    options: {
      qmsum: { type: 'string' },
      limit: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write('Usage: npm run seed -- [--qmsum <dir of QMSum JSON files>] [--limit <n>]\n');
    return;
  }
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
    throw new Error('--limit must be a whole number above 0');
  }

  const config = loadConfig();
  const logger = createLogger('warn');
  const stops: StopStep[] = [];
  try {
    const { url, database } = await openDatabase(config, stops, { poolSize: 4 });
    const jobs = await startJobQueue({
      url,
      db: database.db,
      logger,
      jobs: jobDefinitions(config, systemClock),
    });
    stops.push({ name: 'job queue', stop: () => jobs.stop(5000) });
    const app = await buildApp({ config, database, jobs, logger });
    stops.push({ name: 'app', stop: () => app.close() });

    const result = await seed(app, {
      qmsumDir: values.qmsum,
      qmsumLimit: limit,
      log: (message) => process.stdout.write(`seed: ${message}\n`),
    });
    const made = Object.entries(result.created)
      .map(([what, count]) => `${count} ${what}`)
      .join(', ');
    process.stdout.write(
      `\nDemo data ready (this run created ${made}).\nSign in as ${result.email} with password ${result.password}` +
        " (Acme Demo is that account's default organization).\n" +
        `In a browser: start the service (npm start) and open ${config.appUrl}/.\n\n` +
        'Things to try from a shell (the first line keeps a session token in $T):\n' +
        thingsToTry(config.appUrl, result.email, result.password)
          .map((line) => `  ${line}\n`)
          .join(''),
    );
  } finally {
    await runStopSteps(stops, 10_000, (details, message) => console.warn(message, details));
  }
}

try {
  await main();
} catch (error) {
  const message = error instanceof ConfigError ? error.message : (error as Error).message;
  process.stderr.write(`\nSeeding failed: ${message}\n`);
  process.exit(1);
}
