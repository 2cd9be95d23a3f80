import { and, asc, eq, ne, notExists, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db, Tx } from '../../db/client.ts';
import { isTransientDatabaseError } from '../../db/errors.ts';
import { importFiles, importJobs } from '../../db/schema/index.ts';
import { AppError } from '../../http/errors.ts';
import { clockDuration } from '../../lib/duration.ts';
import type { TranscriptWriteContext } from '../transcripts/service.ts';
import { createVideoIn } from '../videos/service.ts';
import { type ImportFormat, parseImportFile } from './formats.ts';

/** What running an import needs: a job's database, queue and logger, and the time. */
export type ImportContext = TranscriptWriteContext & { db: Db; logger: FastifyBaseLogger };

type JobRow = typeof importJobs.$inferSelect;
type FileRow = typeof importFiles.$inferSelect;
type Outcome = Pick<FileRow, 'status'> & Partial<Pick<FileRow, 'format' | 'videoId' | 'error' | 'errorLine'>>;

/** The partial unique index that keeps one created file per organization and hash. */
const CREATED_HASH_INDEX = 'import_files_created_hash_idx';

const isCreatedHashConflict = (error: unknown) => {
  const { cause } = error as { cause?: { code?: string; constraint?: string } };
  return cause?.code === '23505' && cause.constraint === CREATED_HASH_INDEX;
};

/**
 * Runs an import: its pending files one by one, each in its own transaction, then marks it
 * completed. Files already decided are skipped, so a job restarted after a crash resumes where it
 * stopped; two runs at once share the files (each row is locked while it is worked on).
 */
export async function runImport(context: ImportContext, jobId: string) {
  const now = context.clock.now();
  const [job] = await context.db
    .update(importJobs)
    .set({ status: 'running', startedAt: sql`coalesce(${importJobs.startedAt}, ${now})` })
    .where(and(eq(importJobs.id, jobId), ne(importJobs.status, 'completed')))
    .returning();
  // Gone with its organization, or done already.
  if (!job) return;
  let more = true;
  while (more) more = await importNextFile(context, job);
  const pending = context.db
    .select({ id: importFiles.id })
    .from(importFiles)
    .where(and(eq(importFiles.jobId, jobId), eq(importFiles.status, 'pending')));
  // A file another run still holds is pending: that run completes the job.
  await context.db
    .update(importJobs)
    .set({ status: 'completed', finishedAt: context.clock.now() })
    .where(and(eq(importJobs.id, jobId), ne(importJobs.status, 'completed'), notExists(pending)));
}

async function importNextFile(context: ImportContext, job: JobRow): Promise<boolean> {
  return context.db.transaction(async (tx) => {
    const [file] = await tx
      .select()
      .from(importFiles)
      .where(and(eq(importFiles.jobId, job.id), eq(importFiles.status, 'pending')))
      .orderBy(asc(importFiles.position))
      .limit(1)
      .for('update', { skipLocked: true });
    if (!file) return false;
    const outcome = await importFile(tx, context, job, file);
    if (outcome) await record(tx, file.id, outcome);
    return true;
  });
}

/** The file's outcome, processed: its content is no longer needed. */
const record = (tx: Tx, fileId: string, outcome: Outcome) =>
  tx
    .update(importFiles)
    .set({ ...outcome, content: null })
    .where(eq(importFiles.id, fileId));

/** The video made from the first file of the organization with these bytes. */
async function firstImport(tx: Tx, organizationId: string, sha256: string) {
  const [row] = await tx
    .select({ videoId: importFiles.videoId })
    .from(importFiles)
    .where(
      and(
        eq(importFiles.organizationId, organizationId),
        eq(importFiles.sha256, sha256),
        eq(importFiles.status, 'created'),
      ),
    );
  return row;
}

const failed = (format: ImportFormat | null, error: string): Outcome => ({ status: 'failed', format, error });

function messageOf(error: AppError) {
  const details = error.details?.map((detail) => detail.message).join('; ');
  return details ? `${error.message}: ${details}` : error.message;
}

/**
 * Decides one file. A created video and the file's `created` mark share a savepoint: if the
 * partial unique index finds the same bytes created meanwhile (another import), both roll back
 * and the file is a duplicate. Any other unexpected error fails the file (logged), except the
 * database's own transient errors, which fail the run so that the queue retries it. Returns the
 * outcome still to record (null: recorded with the video).
 */
async function importFile(
  tx: Tx,
  context: ImportContext,
  job: JobRow,
  file: FileRow,
): Promise<Outcome | null> {
  const earlier = await firstImport(tx, job.organizationId, file.sha256);
  if (earlier) return { status: 'duplicate', videoId: earlier.videoId };
  let parsed: Awaited<ReturnType<typeof parseImportFile>>;
  try {
    parsed = await parseImportFile(file.name, file.content ?? '');
  } catch (error) {
    // A parser's bug, not a syntax error: the file fails (else it would stay first in line forever).
    context.logger.error(
      { err: error, importId: job.id, file: file.name },
      'a file of an import could not be parsed',
    );
    return failed(null, 'the file could not be read (an internal error, logged)');
  }
  if (!parsed.ok) return { ...failed(parsed.format, parsed.error), errorLine: parsed.line };
  const authorId = job.createdBy;
  if (!authorId) return failed(parsed.format, 'the account that started the import no longer exists');
  try {
    await tx.transaction(async (savepoint) => {
      const video = await createVideoIn(savepoint, context, authorId, {
        organizationId: job.organizationId,
        title: parsed.title,
        // Rounded up: a transcript's last cue ends within its last second.
        duration: clockDuration(Math.ceil(parsed.durationSeconds)),
        transcript: parsed.transcript,
        isPublic: job.visibility === 'public',
        channelId: job.channelId,
      });
      await record(savepoint, file.id, { status: 'created', format: parsed.format, videoId: video.id });
    });
    return null;
  } catch (error) {
    if (isCreatedHashConflict(error)) {
      return {
        status: 'duplicate',
        videoId: (await firstImport(tx, job.organizationId, file.sha256))?.videoId,
      };
    }
    if (error instanceof AppError) return failed(parsed.format, messageOf(error));
    // The database's trouble, not the file's: the run fails, the file stays pending, the job is retried.
    if (isTransientDatabaseError(error)) throw error;
    context.logger.error({ err: error, importId: job.id, file: file.name }, 'a file of an import failed');
    return failed(parsed.format, 'the file could not be imported (an internal error, logged)');
  }
}
