import { ConfigError, loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/open.ts';
import { runStopSteps, type StopStep } from '../src/lib/stop-steps.ts';
import { reindexAll } from '../src/modules/search/reindex.ts';

/**
 * `npm run reindex`: rebuilds the search index of the database the service uses (DATABASE_URL,
 * or the embedded cluster under DATA_DIR). With DATABASE_URL it can run while the service does;
 * the embedded cluster can only be started by one process, so stop the service first.
 */
async function main() {
  const config = loadConfig();
  const stops: StopStep[] = [];
  try {
    const { database } = await openDatabase(config, stops, { poolSize: 2 });
    const started = Date.now();
    await reindexAll(database.db, (message) => process.stdout.write(`reindex: ${message}\n`));
    process.stdout.write(`reindex: done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  } finally {
    await runStopSteps(stops, 10_000, (details, message) => console.warn(message, details));
  }
}

try {
  await main();
} catch (error) {
  const message = error instanceof ConfigError ? error.message : (error as Error).message;
  process.stderr.write(`\nReindexing failed: ${message}\n`);
  process.exit(1);
}
