import { type DestinationStream, pino } from 'pino';

/** Credentials and secrets never reach the logs, wherever they appear in a logged object. */
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'req.headers["x-share-token"]',
  'res.headers["set-cookie"]',
  'password',
  'token',
  'secret',
  'apiKey',
  '*.password',
  '*.token',
  '*.secret',
  '*.apiKey',
  'databaseUrl',
];

/** Logs JSON lines to stdout, or to `destination` (tests read the lines). */
export function createLogger(level: string, destination?: DestinationStream) {
  const options = { level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  return destination ? pino(options, destination) : pino(options);
}

export type Logger = ReturnType<typeof createLogger>;
