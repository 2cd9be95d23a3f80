import { eq, getTableColumns } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/helpers/app.ts';
import { signUpUser } from '../../test/helpers/factories.ts';
import { createVideoRow } from '../../test/helpers/library.ts';
import { jsonObjectOf, rowReader } from './hot-path.ts';
import { videos } from './schema/index.ts';

describe('db/hot-path: a row as one json value', () => {
  const ctx = useTestApp();

  it('reads back every column as drizzle does: timestamps as Dates, numbers, booleans, nulls', async () => {
    const { db, pool } = ctx().database;
    const user = await signUpUser(ctx().app);
    const row = await createVideoRow(db, {
      organizationId: user.organizationId,
      authorId: user.id,
      durationSeconds: 90.5,
      isPublic: true,
      viewCount: 3,
      recordedAt: new Date('2026-03-02T09:00:00.123Z'),
      description: null,
    });
    const columns = getTableColumns(videos);
    const { rows } = await pool.query(
      `SELECT ${jsonObjectOf(columns, 'v', { extra: "'x'" })} AS row FROM videos v WHERE v.id = $1`,
      [row.id],
    );
    const [fromDrizzle] = await db.select().from(videos).where(eq(videos.id, row.id));

    expect(rowReader(columns)(rows[0].row)).toEqual({ ...fromDrizzle, extra: 'x' });
    expect(fromDrizzle?.recordedAt).toEqual(new Date('2026-03-02T09:00:00.123Z'));
  });
});
