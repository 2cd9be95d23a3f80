import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { signUpUser } from '../../../test/helpers/factories.ts';
import { createVideoRow } from '../../../test/helpers/library.ts';

/**
 * Deleting an organization cascades through every row it owns, while background jobs may hold
 * some of those rows and reach for the organization (storing a transcript locks its video, then
 * charges and logs against the organization). The two wait for each other; PostgreSQL aborts one,
 * and the deletion, waiting longest, is the one it picks. The request must still succeed.
 */
describe('deleting an organization beside a job holding its rows', () => {
  const ctx = useTestApp();

  // Deleting the account of an organization's only member deletes the organization too.
  it.each([
    [
      'DELETE /organizations/{id}',
      (organizationId: string) => `/organizations/${organizationId}`,
      'organization',
    ],
    ['DELETE /users/me', () => '/users/me', 'user'],
  ])('%s succeeds when the database breaks a deadlock by aborting it', async (_, urlOf, deleted) => {
    const owner = await signUpUser(ctx().app);
    const organizationId = owner.organizationId;
    const video = await createVideoRow(ctx().database.db, { organizationId, authorId: owner.id });

    // The "job": its own connection, as a job's transaction is.
    const job = new pg.Client({ connectionString: ctx().databaseUrl });
    await job.connect();
    try {
      // The deletion detects the deadlock itself (it waits first; this side checks much later).
      await job.query(`SET deadlock_timeout = '30s'`);
      await job.query('BEGIN');
      await job.query('SELECT id FROM videos WHERE id = $1 FOR UPDATE', [video.id]);

      const deletion = ctx().app.inject({
        method: 'DELETE',
        url: urlOf(organizationId),
        headers: owner.headers,
      });
      await waitForLockWait(job, 'videos');
      // What a foreign key check does on insert: this closes the cycle.
      await job.query('SELECT id FROM organizations WHERE id = $1 FOR KEY SHARE', [organizationId]);
      await job.query('COMMIT');

      // Without the deletion's retry this answers 503 (a 500 before it was mapped).
      const response = await deletion;
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ id: deleted === 'user' ? owner.id : organizationId, deleted: true });
      const left = await job.query('SELECT count(*)::int AS n FROM organizations WHERE id = $1', [
        organizationId,
      ]);
      expect(left.rows[0].n).toBe(0);
    } finally {
      await job.end();
    }
  });
});

/** Resolves once another backend waits for a lock on a row of `table` (the deletion's cascade). */
async function waitForLockWait(client: pg.Client, table: string) {
  for (let attempt = 0; attempt < 200; attempt++) {
    const { rows } = await client.query(
      `SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
        WHERE NOT l.granted AND l.pid <> pg_backend_pid() AND c.relname = $1
        UNION ALL
       SELECT 1 FROM pg_locks l
        WHERE NOT l.granted AND l.locktype = 'transactionid' AND l.pid <> pg_backend_pid()`,
      [table],
    );
    if (rows.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no backend came to wait for a lock on ${table}`);
}
