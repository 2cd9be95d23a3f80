import { and, asc, eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db, Tx } from '../../db/client.ts';
import { transcriptChunks, videos } from '../../db/schema/index.ts';
import type { JobDefinition, JobQueue } from '../../jobs/queue.ts';
import { createOpenAiEmbedder, type Embedder } from '../ai/openai-client.ts';

export const EMBEDDING_JOB = 'search.embed';
export const EMBEDDING_SWEEP_JOB = 'search.embed-sweep';
/** Texts per embeddings request: well under providers' input limits (OpenAI takes 2,048). */
export const EMBEDDING_BATCH = 64;
const SWEEP_BATCH = 50;
/** A search or a question waits this long at most for its vector before ranking lexically. */
const QUERY_TIMEOUT_MS = 2_000;

/** A question's or a query's vector, with the model that made it: only that model's passages compare. */
export type QueryEmbedding = { model: string; vector: number[] };

/** The embedding model in use: `AI_EMBEDDING_MODEL` with the `openai` provider; the local one embeds nothing. */
export function embeddingModelOf(config: Pick<Config, 'ai'>): string | undefined {
  return config.ai.provider === 'openai' ? config.ai.embeddingModel : undefined;
}

function embedderFor(settings: Config['ai']): Embedder {
  const embed = createOpenAiEmbedder(settings);
  if (!embed) throw new Error('no embedding model configured');
  return embed;
}

/** Scaled to length 1, so that cosine similarity is a dot product (a zero vector stays zero). */
export function unitVector(vector: number[]): number[] {
  let squares = 0;
  for (const value of vector) squares += value * value;
  const norm = Math.sqrt(squares);
  return norm === 0 ? vector : vector.map((value) => value / norm);
}

/** A vector as an array literal, for a `::real[]` parameter. */
export const vectorParam = (vector: number[]) => `{${vector.join(',')}}`;

/**
 * Asks for the video's passages to be embedded, in the transaction that rewrote them: the job
 * exists only if the change commits. Without an embedding model, nothing.
 */
export async function requestEmbeddings(
  tx: Tx,
  jobs: Pick<JobQueue, 'send'>,
  videoId: string,
  config: Pick<Config, 'ai'>,
): Promise<void> {
  if (!embeddingModelOf(config)) return;
  await jobs.send(EMBEDDING_JOB, { videoId }, { tx });
}

/**
 * Embeds the video's passages that have no vector from `model` (a passage rewritten since lost
 * its vector with it), in batches, each stored as it comes: a failure keeps what was done. A
 * deleted video is left alone (the sweep finds it again if it is restored); a passage rewritten
 * while its vector was being made is skipped. Returns how many passages were embedded.
 */
export async function embedVideoPassages(db: Db, embed: Embedder, model: string, videoId: string) {
  const missing = await db
    .select({ id: transcriptChunks.id, text: transcriptChunks.text })
    .from(transcriptChunks)
    .innerJoin(videos, eq(videos.id, transcriptChunks.videoId))
    .where(
      and(
        eq(transcriptChunks.videoId, videoId),
        eq(videos.isDeleted, false),
        sql`not exists (select 1 from chunk_embeddings e
          where e.chunk_id = ${transcriptChunks.id} and e.model = ${model})`,
      ),
    )
    .orderBy(asc(transcriptChunks.index));
  for (let offset = 0; offset < missing.length; offset += EMBEDDING_BATCH) {
    const batch = missing.slice(offset, offset + EMBEDDING_BATCH);
    const vectors = await embed(batch.map((passage) => passage.text));
    const rows = batch.map((passage, position) => ({
      id: passage.id,
      embedding: unitVector(vectors[position] as number[]),
    }));
    // A JSON array's text is a PostgreSQL array literal once its brackets become braces.
    await db.execute(sql`
      insert into chunk_embeddings (chunk_id, organization_id, video_id, model, embedding)
      select c.id, c.organization_id, c.video_id, ${model}, translate(r.embedding::text, '[]', '{}')::real[]
      from json_to_recordset(${JSON.stringify(rows)}::json) as r(id uuid, embedding json)
      join transcript_chunks c on c.id = r.id
      on conflict (chunk_id) do update
        set model = excluded.model, embedding = excluded.embedding, created_at = now()`);
  }
  return missing.length;
}

/**
 * Queues videos with passages lacking a vector from `model` — stored before embeddings were
 * configured, after a model change, or whose job gave up — a batch at a time. Picked at random,
 * so that videos a provider keeps refusing cannot hold the others back.
 */
export async function requestMissingEmbeddings(db: Db, jobs: Pick<JobQueue, 'send'>, model: string) {
  const { rows } = await db.execute<{ id: string }>(sql`
    select v.id from videos v
    where not v.is_deleted and exists (
      select 1 from transcript_chunks c
      where c.video_id = v.id
        and not exists (select 1 from chunk_embeddings e where e.chunk_id = c.id and e.model = ${model}))
    order by random()
    limit ${SWEEP_BATCH}`);
  for (const row of rows) await jobs.send(EMBEDDING_JOB, { videoId: row.id });
  return rows.length;
}

/**
 * The embedding job and its sweep, when an embedding model is configured. A failing provider
 * fails the job, which pg-boss retries (backing off); meanwhile search and retrieval rank the
 * video's passages lexically.
 */
export function embeddingJobs(config: Config): JobDefinition[] {
  const model = embeddingModelOf(config);
  if (!model) return [];
  const embed = embedderFor(config.ai);
  return [
    {
      name: EMBEDDING_JOB,
      queue: { retryLimit: 3, retryDelay: 30, retryBackoff: true },
      handler: async (data, { db, logger }) => {
        const { videoId } = data as { videoId?: unknown };
        if (typeof videoId !== 'string') return;
        try {
          const embedded = await embedVideoPassages(db, embed, model, videoId);
          if (embedded > 0) logger.debug({ videoId, embedded }, 'passages embedded');
        } catch (error) {
          logger.warn({ err: error, videoId }, 'passages not embedded; the job will be retried');
          throw error;
        }
      },
    },
    {
      name: EMBEDDING_SWEEP_JOB,
      cron: '*/5 * * * *',
      handler: async (_data, { db, jobs, logger }) => {
        const requested = await requestMissingEmbeddings(db, jobs, model);
        if (requested > 0) logger.info({ requested }, 'embeddings requested for videos lacking them');
      },
    },
  ];
}

const queryEmbedders = new WeakMap<Config['ai'], Embedder>();

/**
 * The vector of a search query or a question, for fusing with lexical ranks; undefined without
 * an embedding model, and when the provider fails or takes longer than a short timeout (logged):
 * the caller then ranks lexically, as it would without embeddings.
 */
export async function embedQuery(
  context: { config: Pick<Config, 'ai'>; logger: FastifyBaseLogger },
  text: string,
): Promise<QueryEmbedding | undefined> {
  const model = embeddingModelOf(context.config);
  if (!model || text.trim() === '') return undefined;
  const settings = context.config.ai;
  let embed = queryEmbedders.get(settings);
  if (!embed) {
    embed = embedderFor({ ...settings, timeoutMs: Math.min(settings.timeoutMs, QUERY_TIMEOUT_MS) });
    queryEmbedders.set(settings, embed);
  }
  try {
    const [vector] = await embed([text]);
    return vector ? { model, vector: unitVector(vector) } : undefined;
  } catch (error) {
    context.logger.warn({ err: error }, 'query not embedded: ranking lexically');
    return undefined;
  }
}
