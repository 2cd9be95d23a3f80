import { pino } from 'pino';

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

export function createLogger(level: string) {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } });
}

export type Logger = ReturnType<typeof createLogger>;
