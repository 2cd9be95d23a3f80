import { index, pgTable, real, text, uuid } from 'drizzle-orm/pg-core';
import { createdAt } from './columns.ts';
import { videos } from './library.ts';
import { transcriptChunks } from './search.ts';

/**
 * A passage's vector from the configured embedding model (`AI_EMBEDDING_MODEL`), scaled to unit
 * length so that cosine similarity is a dot product. No pgvector: similarity is computed in SQL
 * over a bounded set of candidates (docs/search.md). A passage rewritten (transcript changed,
 * speaker renamed) takes its vector with it; the embedding job makes a new one.
 */
export const chunkEmbeddings = pgTable(
  'chunk_embeddings',
  {
    chunkId: uuid('chunk_id')
      .primaryKey()
      .references(() => transcriptChunks.id, { onDelete: 'cascade' }),
    organizationId: uuid('organization_id').notNull(),
    videoId: uuid('video_id')
      .notNull()
      .references(() => videos.id, { onDelete: 'cascade' }),
    /** The model that made it: vectors of another model are not comparable, and are made again. */
    model: text('model').notNull(),
    embedding: real('embedding').array().notNull(),
    createdAt: createdAt(),
  },
  (table) => [index('chunk_embeddings_video_idx').on(table.videoId)],
);
