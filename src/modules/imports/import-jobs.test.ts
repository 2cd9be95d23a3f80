import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { asc, eq } from 'drizzle-orm';
import { describe, expect, it, vi } from 'vitest';
import { type TestApp, useTestApp } from '../../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../../test/helpers/factories.ts';
import { importFiles, importJobs, videos } from '../../db/schema/index.ts';
import { insertVideo } from '../transcripts/test-support.ts';
import { createVideoIn } from '../videos/service.ts';
import { parseImportFile } from './formats.ts';
import { type ImportContext, runImport } from './processing.ts';
import { filePart, importAndWait, importFixture, outcome } from './test-support.ts';

// The originals, spied on so that a test can make one call fail.
vi.mock('../videos/service.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('../videos/service.ts')>();
  return { ...original, createVideoIn: vi.fn(original.createVideoIn) };
});
vi.mock('./formats.ts', async (importOriginal) => {
  const original = await importOriginal<typeof import('./formats.ts')>();
  return { ...original, parseImportFile: vi.fn(original.parseImportFile) };
});

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

type FileSeed = Partial<typeof importFiles.$inferInsert> & { name: string; text: string };

/** An import as POST stores it, written directly, so that the test runs it (no job is queued). */
async function seedImport(testApp: TestApp, user: SignedUpUser, files: FileSeed[]) {
  const { db } = testApp.database;
  const [job] = await db
    .insert(importJobs)
    .values({ organizationId: user.organizationId, createdBy: user.id, visibility: 'private' })
    .returning();
  if (!job) throw new Error('no import inserted');
  const rows = await db
    .insert(importFiles)
    .values(
      files.map(({ text, ...file }, position) => ({
        jobId: job.id,
        organizationId: user.organizationId,
        position,
        sha256: sha256(text),
        content: text,
        ...file,
      })),
    )
    .returning();
  return { job, rows };
}

const contextOf = (testApp: TestApp): ImportContext => ({
  config: testApp.config,
  clock: testApp.clock,
  db: testApp.database.db,
  jobs: testApp.jobs,
  logger: testApp.app.log,
});

const statesOf = async (testApp: TestApp, jobId: string) =>
  testApp.database.db
    .select({ name: importFiles.name, status: importFiles.status, videoId: importFiles.videoId })
    .from(importFiles)
    .where(eq(importFiles.jobId, jobId))
    .orderBy(asc(importFiles.position));

describe('the import job', () => {
  const ctx = useTestApp({ env: { FREE_PLAN_VIDEOS: '2' } });

  it('fails the files past the plan’s video limit with its message, and imports the rest', async () => {
    const user = await signUpUser(ctx().app);
    const done = await importAndWait(ctx(), user, [
      { name: 'organizationId', value: user.organizationId },
      filePart('one.txt', 'Ada: The first meeting.'),
      filePart('two.txt', 'Ada: The second meeting.'),
      filePart('three.txt', 'Ada: The third meeting.'),
    ]);
    expect(done.files).toEqual([
      outcome('one.txt', 'created', { format: 'labelled' }),
      outcome('two.txt', 'created', { format: 'labelled' }),
      outcome('three.txt', 'failed', {
        format: 'labelled',
        error: 'The Free plan keeps 2 videos and the organization has 2: upgrade the plan, or delete videos',
      }),
    ]);
  });

  it('resumes where a stopped run left off: decided files stay as they are, and a completed job is left alone', async () => {
    const user = await signUpUser(ctx().app);
    const earlier = await insertVideo(ctx(), { id: user.id, organizationId: user.organizationId });
    const startedAt = new Date('2026-01-05T10:00:00.000Z');
    const { job } = await seedImport(ctx(), user, [
      {
        name: 'done.vtt',
        text: 'WEBVTT\n\n00:00:01.000 --> 00:00:02.000\nDone.',
        status: 'created',
        videoId: earlier.id,
      },
      { name: 'bad.srt', text: 'broken', status: 'failed', error: 'line 1: earlier', errorLine: 1 },
      { name: 'next.txt', text: 'Ada: Picked up after the restart.' },
    ]);
    await ctx()
      .database.db.update(importJobs)
      .set({ status: 'running', startedAt })
      .where(eq(importJobs.id, job.id));

    await runImport(contextOf(ctx()), job.id);
    const states = await statesOf(ctx(), job.id);
    expect(states).toEqual([
      { name: 'done.vtt', status: 'created', videoId: earlier.id },
      { name: 'bad.srt', status: 'failed', videoId: null },
      { name: 'next.txt', status: 'created', videoId: expect.any(String) },
    ]);
    const [finished] = await ctx().database.db.select().from(importJobs).where(eq(importJobs.id, job.id));
    expect(finished).toMatchObject({ status: 'completed', startedAt });
    expect(finished?.finishedAt).toBeInstanceOf(Date);

    await runImport(contextOf(ctx()), job.id);
    expect(await statesOf(ctx(), job.id)).toEqual(states);
    const [again] = await ctx().database.db.select().from(importJobs).where(eq(importJobs.id, job.id));
    expect(again?.finishedAt).toEqual(finished?.finishedAt);
  });

  it('fails a file whose parser throws (logged), and goes on with the next', async () => {
    const user = await signUpUser(ctx().app);
    const { job } = await seedImport(ctx(), user, [
      { name: 'crash.txt', text: 'Ada: The parser breaks on this one.' },
      { name: 'fine.txt', text: 'Ada: This one is fine.' },
    ]);
    vi.mocked(parseImportFile).mockRejectedValueOnce(new TypeError('a bug in a parser'));
    await runImport(contextOf(ctx()), job.id);
    const files = await ctx()
      .database.db.select({ name: importFiles.name, status: importFiles.status, error: importFiles.error })
      .from(importFiles)
      .where(eq(importFiles.jobId, job.id))
      .orderBy(asc(importFiles.position));
    expect(files).toEqual([
      {
        name: 'crash.txt',
        status: 'failed',
        error: 'the file could not be read (an internal error, logged)',
      },
      { name: 'fine.txt', status: 'created', error: null },
    ]);
    const [finished] = await ctx().database.db.select().from(importJobs).where(eq(importJobs.id, job.id));
    expect(finished?.status).toBe('completed');
  });

  it('lets a transient database error fail the run, not the file, which the retried run imports', async () => {
    const user = await signUpUser(ctx().app);
    const { job } = await seedImport(ctx(), user, [
      { name: 'retry.txt', text: 'Ada: Imported on the retry.' },
    ]);
    const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    vi.mocked(createVideoIn).mockRejectedValueOnce(new Error('Failed query', { cause: deadlock }));
    await expect(runImport(contextOf(ctx()), job.id)).rejects.toThrow('Failed query');
    expect(await statesOf(ctx(), job.id)).toEqual([{ name: 'retry.txt', status: 'pending', videoId: null }]);
    const [stopped] = await ctx().database.db.select().from(importJobs).where(eq(importJobs.id, job.id));
    expect(stopped?.status).toBe('running');

    await runImport(contextOf(ctx()), job.id);
    expect(await statesOf(ctx(), job.id)).toEqual([
      { name: 'retry.txt', status: 'created', videoId: expect.any(String) },
    ]);
  });

  it('makes a file created by another import meanwhile a duplicate, and rolls back the video it had made', async () => {
    const user = await signUpUser(ctx().app);
    const text = importFixture('incident-review.srt');
    const first = await seedImport(ctx(), user, [{ name: 'first.srt', text }]);
    const second = await seedImport(ctx(), user, [{ name: 'second.srt', text }]);
    const video = await insertVideo(ctx(), { id: user.id, organizationId: user.organizationId });
    // The first import creates its file in a transaction still open when the second one gets there.
    const client = await ctx().database.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(
        `UPDATE import_files SET status = 'created', video_id = $1, content = NULL WHERE id = $2`,
        [video.id, first.rows[0]?.id],
      );
      const running = runImport(contextOf(ctx()), second.job.id);
      await waitForLockWait(ctx());
      await client.query('COMMIT');
      await running;
    } finally {
      client.release();
    }
    expect(await statesOf(ctx(), second.job.id)).toEqual([
      { name: 'second.srt', status: 'duplicate', videoId: video.id },
    ]);
    const made = await ctx()
      .database.db.select({ id: videos.id })
      .from(videos)
      .where(eq(videos.title, 'second'));
    expect(made).toEqual([]);
  });
});

/** Until a session of the test's database waits for a lock (the second import, on the hash index). */
async function waitForLockWait(testApp: TestApp) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const { rows } = await testApp.database.pool.query(
      "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
    );
    if ((rows[0] as { waiting: number }).waiting > 0) return;
    if (Date.now() > deadline) throw new Error('the second import never waited for the first');
    await sleep(20);
  }
}
