import { z } from 'zod';
import { uuid } from '../../http/ids.ts';
import { paginated, paginationQuery } from '../../http/pagination.ts';
import { timestamp } from '../../http/timestamps.ts';

export const SEARCH_TYPES = ['video', 'clip', 'comment', 'channel', 'series', 'collection'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

export const QUERY_MAX = 500;

/** `types=video,clip` (or repeated `types=video&types=clip`). */
const typesList = z
  .union([z.string(), z.array(z.string())])
  .transform((value) => (Array.isArray(value) ? value : [value]).flatMap((item) => item.split(',')))
  .transform((items) => items.map((item) => item.trim()).filter(Boolean))
  .pipe(z.array(z.enum(SEARCH_TYPES)).min(1, 'must name at least one type'))
  .transform((items) => [...new Set(items)]);

/**
 * What narrows a search, besides its words. Saved searches keep exactly this, so that running
 * one is the same request as the search it was saved from.
 */
export const searchFilters = z.object({
  organizationId: uuid().optional().meta({ description: 'Only this organization (default: all of yours).' }),
  types: typesList.optional().meta({
    description: `Comma-separated: ${SEARCH_TYPES.join(', ')}. Default: all.`,
    example: 'video,clip',
  }),
  channelId: uuid().optional().meta({ description: 'Videos of this channel, and their clips and comments.' }),
  seriesId: uuid().optional().meta({ description: 'Videos of this series, and their clips and comments.' }),
  collectionId: uuid()
    .optional()
    .meta({ description: 'Videos of this collection, and their clips and comments.' }),
  authorId: uuid()
    .optional()
    .meta({ description: "Only what this person made (a video's author, a clip's or comment's creator)." }),
  speaker: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(200, 'must be at most 200 characters')
    .optional()
    .meta({ description: 'Only transcript moments where this speaker (name, any case) talks.' }),
  from: timestamp().optional().meta({ description: 'Created at or after this instant.' }),
  to: timestamp().optional().meta({ description: 'Created at or before this instant.' }),
});

export type SearchFilters = z.output<typeof searchFilters>;

export const searchQuery = paginationQuery
  .extend({
    q: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(QUERY_MAX, `must be at most ${QUERY_MAX} characters`)
      .meta({
        description:
          'Words, best match (any may match; more of the rarer words rank first), `+word` and `"a phrase"` ' +
          'required, `-word` to exclude, `OR` between alternatives; ' +
          'the last word also matches as a prefix.',
        example: 'roadmap "launch date" -draft',
      }),
  })
  .extend(searchFilters.shape)
  .refine((query) => !query.from || !query.to || query.from <= query.to, {
    path: ['to'],
    message: 'must not be before from',
  });

export type SearchQuery = z.output<typeof searchQuery>;

export const momentSchema = z.object({
  start: z.number().meta({ description: 'Seconds into the video: a deep link.' }),
  end: z.number(),
  speaker: z.string().nullable(),
  snippet: z.string().meta({ description: 'The words said, matches in `<mark>`; HTML escaped.' }),
});

export const searchResultSchema = z
  .object({
    type: z.enum(SEARCH_TYPES),
    id: uuid(),
    videoId: uuid()
      .nullable()
      .meta({ description: 'The video a clip or comment belongs to (a video: itself).' }),
    organizationId: uuid(),
    title: z.string(),
    snippet: z
      .string()
      .meta({ description: 'Where the words matched, matches in `<mark>`; HTML in the source is escaped.' }),
    score: z.number().meta({
      description:
        'Relevance, rounded to 4 decimals: results come in this order (equal scores newest first). ' +
        'For comparing the results of one search, not across searches.',
    }),
    createdAt: timestamp(),
    moments: z.array(momentSchema).optional().meta({
      description: 'Videos: up to 3 places in the transcript where the words were said, best first.',
    }),
  })
  .meta({ id: 'SearchResult' });

export type SearchResult = z.infer<typeof searchResultSchema>;

export const searchResponseSchema = paginated(searchResultSchema).extend({
  facets: z.object({
    // An object with a property per type (not a record keyed by the enum): generators and linters
    // then see every count as a declared, required property.
    types: z
      .object(
        Object.fromEntries(SEARCH_TYPES.map((type) => [type, z.number().int()])) as Record<
          (typeof SEARCH_TYPES)[number],
          z.ZodNumber
        >,
      )
      .meta({ description: 'How many results each type has for this query and filters (all types).' }),
  }),
});
