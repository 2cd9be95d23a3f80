import { createHash } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';

/**
 * The floors of `npm run bench`: Fastify with its defaults, no plugins, no logger.
 * - `GET /health` answers a JSON object shaped like the service's own liveness answer.
 * - With DATABASE_URL, `GET /videos/:id` does the work of the service's video read through raw
 *   `pg` — the session by token hash, then the video joined with the caller's membership, both as
 *   prepared statements — and answers the row: no schema validation, serialiser, hooks, rate
 *   limiter or logging, the least any implementation must pay.
 * - With DATABASE_URL, `GET /one-trip/videos/:id` does the same in one statement (the session
 *   joined with the video and the membership), as the service reads it: the floor of the service's
 *   own plan.
 * Reads PORT (required), HOST (default 127.0.0.1), DATABASE_URL (optional); stops on SIGTERM or SIGINT.
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

const pool = process.env.DATABASE_URL
  ? new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 })
  : undefined;

const SESSION_BY_TOKEN_HASH = {
  name: 'floor_session_by_token_hash',
  text: `SELECT s.user_id AS "userId", s.expires_at AS "expiresAt"
         FROM sessions s JOIN users u ON u.id = s.user_id
         WHERE s.token_hash = $1`,
};
const VIDEO_COLUMNS = `v.id, v.title, v.description, v.duration, v.duration_seconds AS "durationSeconds",
           v.thumbnail_url AS "thumbnailUrl", v.video_url AS "videoUrl", v.author_id AS "authorId",
           v.organization_id AS "organizationId", v.channel_id AS "channelId",
           v.collection_id AS "collectionId", v.series_id AS "seriesId", v.transcript,
           v.ai_summary AS "aiSummary", v.view_count AS "viewCount", v.is_public AS "isPublic",
           v.is_deleted AS "isDeleted", v.deleted_at AS "deletedAt", v.retention_until AS "retentionUntil",
           v.recorded_at AS "recordedAt", v.created_at AS "createdAt", v.updated_at AS "updatedAt"`;
const VIDEO_WITH_CALLER_ROLE = {
  name: 'floor_video_with_caller_role',
  text: `SELECT ${VIDEO_COLUMNS}, m.role
         FROM videos v
         LEFT JOIN memberships m ON m.organization_id = v.organization_id AND m.user_id = $2
         WHERE v.id = $1`,
};
const SESSION_WITH_VIDEO = {
  name: 'floor_session_with_video',
  text: `SELECT s.expires_at AS "expiresAt", ${VIDEO_COLUMNS}, m.role
         FROM sessions s JOIN users u ON u.id = s.user_id
         LEFT JOIN videos v ON v.id = $2
         LEFT JOIN memberships m ON m.organization_id = v.organization_id AND m.user_id = u.id
         WHERE s.token_hash = $1`,
};

if (pool) {
  app.get<{ Params: { id: string } }>('/videos/:id', async (request, reply) => {
    const token = request.headers.authorization?.replace(/^Bearer /, '') ?? '';
    const hash = createHash('sha256').update(token).digest('hex');
    const session = (await (pool as pg.Pool).query({ ...SESSION_BY_TOKEN_HASH, values: [hash] })).rows[0];
    if (!session || session.expiresAt <= new Date()) return reply.status(401).send({ error: 'unauthorized' });
    const row = (
      await (pool as pg.Pool).query({
        ...VIDEO_WITH_CALLER_ROLE,
        values: [request.params.id, session.userId],
      })
    ).rows[0];
    if (!row || row.isDeleted || (!row.role && !row.isPublic))
      return reply.status(404).send({ error: 'not found' });
    const { role: _role, ...video } = row;
    return video;
  });

  app.get<{ Params: { id: string } }>('/one-trip/videos/:id', async (request, reply) => {
    const token = request.headers.authorization?.replace(/^Bearer /, '') ?? '';
    const hash = createHash('sha256').update(token).digest('hex');
    const row = (await (pool as pg.Pool).query({ ...SESSION_WITH_VIDEO, values: [hash, request.params.id] }))
      .rows[0];
    if (!row || row.expiresAt <= new Date()) return reply.status(401).send({ error: 'unauthorized' });
    if (!row.id || row.isDeleted || (!row.role && !row.isPublic))
      return reply.status(404).send({ error: 'not found' });
    const { role: _role, expiresAt: _expiresAt, ...video } = row;
    return video;
  });
}

await app.listen({ port, host: process.env.HOST ?? '127.0.0.1' });

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    Promise.all([app.close(), pool?.end()]).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}
