import { createHash } from 'node:crypto';
import { and, asc, eq } from 'drizzle-orm';
import type { AppContext } from '../../context.ts';
import type { Db, Tx } from '../../db/client.ts';
import { channels, importFiles, importJobs } from '../../db/schema/index.ts';
import { errors } from '../../http/errors.ts';
import { requireContentAccess } from '../channels/access.ts';
import { requireRole } from '../organizations/access.ts';
import { decodeFile, type ImportFormat } from './formats.ts';
import type { ImportInput, ImportJobView, ImportVisibility } from './schemas.ts';

export const IMPORT_JOB = 'imports.run';

type ImportJobRow = typeof importJobs.$inferSelect;

/**
 * Accepts an import: its files are stored, each with its hash, and the job that turns them into
 * videos is queued in the same transaction, so an accepted import is never lost. A file that
 * cannot even be stored as text (not UTF-8, a NUL, not a transcript type) is failed right away.
 */
export async function startImport(
  context: AppContext,
  userId: string,
  input: ImportInput,
): Promise<ImportJobView> {
  const { organizationId, channelId } = input;
  await requireRole(context.db, { userId, organizationId, minRole: 'member' });
  if (channelId) {
    const [channel] = await context.db
      .select({ id: channels.id })
      .from(channels)
      .where(and(eq(channels.id, channelId), eq(channels.organizationId, organizationId)));
    if (!channel) {
      throw errors.validation([{ path: 'body.channelId', message: 'must be a channel of the organization' }]);
    }
  }
  const files = await Promise.all(
    input.files.map(async (file, position) => {
      const bytes = new Uint8Array(await file.arrayBuffer());
      const decoded = decodeFile(file.name, bytes);
      return {
        organizationId,
        position,
        name: file.name,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        ...(decoded.ok
          ? { content: decoded.text }
          : {
              status: 'failed' as const,
              format: decoded.format,
              error: decoded.error,
              errorLine: decoded.line,
            }),
      };
    }),
  );
  return context.db.transaction(async (tx) => {
    const [job] = await tx
      .insert(importJobs)
      .values({
        organizationId,
        createdBy: userId,
        channelId: channelId ?? null,
        visibility: input.visibility,
        createdAt: context.clock.now(),
      })
      .returning();
    if (!job) throw new Error('import job insert returned nothing');
    await tx.insert(importFiles).values(files.map((file) => ({ ...file, jobId: job.id })));
    await context.jobs.send(IMPORT_JOB, { jobId: job.id }, { tx });
    return importView(tx, job);
  });
}

/** An import, for any member of its organization; to anyone else it does not exist (404). */
export async function getImport(db: Db, userId: string, jobId: string): Promise<ImportJobView> {
  const [job] = await db.select().from(importJobs).where(eq(importJobs.id, jobId));
  if (!job) throw errors.notFound('Import not found');
  await requireContentAccess(db, {
    userId,
    organizationId: job.organizationId,
    createdBy: job.createdBy,
    action: 'read',
    notFoundMessage: 'Import not found',
  });
  return importView(db, job);
}

/** The job with its files' outcomes, in the order they were sent; the counts are read off them. */
export async function importView(db: Db | Tx, job: ImportJobRow): Promise<ImportJobView> {
  const files = await db
    .select({
      name: importFiles.name,
      status: importFiles.status,
      format: importFiles.format,
      videoId: importFiles.videoId,
      error: importFiles.error,
      line: importFiles.errorLine,
    })
    .from(importFiles)
    .where(eq(importFiles.jobId, job.id))
    .orderBy(asc(importFiles.position));
  const count = (status: string) => files.filter((file) => file.status === status).length;
  const [created, duplicates, failed] = [count('created'), count('duplicate'), count('failed')];
  return {
    id: job.id,
    organizationId: job.organizationId,
    channelId: job.channelId,
    visibility: job.visibility as ImportVisibility,
    status: job.status,
    counts: { total: files.length, processed: created + duplicates + failed, created, duplicates, failed },
    files: files.map((file) => ({ ...file, format: file.format as ImportFormat | null })),
    createdAt: job.createdAt,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
  };
}
