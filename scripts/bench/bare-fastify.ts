import Fastify from 'fastify';

/**
 * The baseline for `npm run bench`: Fastify with its defaults, no plugins, no logger, and one
 * `GET /health` route answering a JSON object shaped like the service's own liveness answer.
 * Reads PORT (required) and HOST (default 127.0.0.1); stops on SIGTERM or SIGINT.
 */

const port = Number(process.env.PORT);
if (!Number.isInteger(port) || port < 1 || port > 65535) {
  process.stderr.write('bare-fastify: set PORT to a free TCP port\n');
  process.exit(1);
}

const app = Fastify({ logger: false });
app.get('/health', async () => ({
  status: 'ok',
  version: '1.0.0',
  uptimeSeconds: Math.round(process.uptime()),
}));

await app.listen({ port, host: process.env.HOST ?? '127.0.0.1' });

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
