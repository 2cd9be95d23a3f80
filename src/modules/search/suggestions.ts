import { sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { uuid } from '../../http/ids.ts';
import { requireRole } from '../organizations/access.ts';

export const SUGGESTION_TYPES = [
  'video',
  'speaker',
  'topic',
  'channel',
  'series',
  'collection',
  'query',
] as const;

/** pg_trgm word similarity from which a text counts as a typo of what was typed. */
const TYPO_SIMILARITY = 0.4;

export const suggestionQuery = z.object({
  q: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(100, 'must be at most 100 characters')
    .meta({ description: 'What has been typed so far.', example: 'roadm' }),
  organizationId: uuid()
    .optional()
    .meta({ description: 'Only this organization (the caller must be a member); default: all of theirs.' }),
  limit: z.coerce.number().int().min(1).max(20).default(8).meta({ description: 'At most this many, 1–20.' }),
});

export type SuggestionQuery = z.output<typeof suggestionQuery>;

export const suggestionSchema = z
  .object({
    type: z.enum(SUGGESTION_TYPES).meta({
      description:
        'video: a title; speaker, topic, channel, series, collection: a name; query: one of your recent searches.',
    }),
    text: z.string(),
    id: uuid().meta({ description: 'What the text is of (for `query`, the search history entry).' }),
  })
  .meta({ id: 'SearchSuggestion' });

export const suggestionsSchema = z.object({ data: z.array(suggestionSchema) });

type Suggestion = z.output<typeof suggestionSchema>;

/** `%`, `_` and `\` taken literally in a LIKE pattern. */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, '\\$&');

/**
 * Completions of what someone is typing, from the titles and names of their organizations and
 * from their own recent searches. A text whose start, or the start of one of its words, is what
 * was typed comes first; then texts that are close to it (typos: trigram word similarity), the
 * closest and then the shortest first. One statement; every source is filtered by conditions the
 * trigram indexes serve (LIKE and `<%`).
 */
export async function suggest(db: Db, userId: string, query: SuggestionQuery): Promise<Suggestion[]> {
  if (query.organizationId) {
    await requireRole(db, { userId, organizationId: query.organizationId, outsider: 'forbidden' });
  }
  const { q } = query;
  const startsWith = `${escapeLike(q)}%`;
  const wordStartsWith = `% ${escapeLike(q)}%`;
  const matches = (column: string) => {
    const text = sql.raw(column);
    return sql`(${text} ilike ${startsWith} or ${text} ilike ${wordStartsWith} or ${q} <% ${text})`;
  };
  const organization = query.organizationId ?? null;
  return db.transaction(
    async (tx) => {
      // `<%` compares with this setting; SET cannot take a parameter, and the value is a constant.
      await tx.execute(sql.raw(`set local pg_trgm.word_similarity_threshold = ${TYPO_SIMILARITY}`));
      const result = await tx.execute<Suggestion>(sql`
        with scope as (
          select organization_id from memberships
          where user_id = ${userId} and (${organization}::uuid is null or organization_id = ${organization}::uuid)
        ),
        candidates as (
          select 'video' as type, id, title as text from videos
            where organization_id in (select organization_id from scope) and not is_deleted
              and ${matches('title')}
          union all
          select 'speaker', id, name from speakers
            where organization_id in (select organization_id from scope) and ${matches('name')}
          union all
          -- Topics extracted from meetings, while a meeting that is not deleted discusses them.
          select 'topic', t.id, t.name from topics t
            where t.organization_id in (select organization_id from scope) and ${matches('t.name')}
              and exists (select 1 from video_topics vt join videos v on v.id = vt.video_id
                where vt.topic_id = t.id and not v.is_deleted)
          union all
          select 'channel', id, name from channels
            where organization_id in (select organization_id from scope) and ${matches('name')}
          union all
          select 'series', id, name from series
            where organization_id in (select organization_id from scope) and ${matches('name')}
          union all
          select 'collection', id, name from collections
            where organization_id in (select organization_id from scope) and ${matches('name')}
          union all
          -- Searches over all organizations belong to every one of them.
          select 'query', id, query from search_history
            where user_id = ${userId}
              and (${organization}::uuid is null or organization_id is null or organization_id = ${organization}::uuid)
              and ${matches('query')}
        ),
        distinct_texts as (
          -- One suggestion per text of a type: the newest thing carrying it (ids are time-ordered).
          select distinct on (type, lower(text)) type, id, text,
            text ilike ${startsWith} or text ilike ${wordStartsWith} as prefix,
            word_similarity(${q}, text) as similarity
          from candidates
          order by type, lower(text), id desc
        )
        select type, id, text from distinct_texts
        order by prefix desc, similarity desc, length(text), lower(text), type
        limit ${query.limit}`);
      return result.rows;
    },
    { accessMode: 'read only' },
  );
}
