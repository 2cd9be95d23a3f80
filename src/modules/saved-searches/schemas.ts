import { z } from 'zod';
import { uuid } from '../../http/ids.ts';
import { paginated } from '../../http/pagination.ts';
import { timestamp } from '../../http/timestamps.ts';
import { someField } from '../channels/schemas.ts';
import { QUERY_MAX, SEARCH_TYPES, searchFilters } from '../search/schemas.ts';

export const NAME_MAX = 100;

const nameField = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(NAME_MAX, `must be at most ${NAME_MAX} characters`)
  .meta({
    description: `1–${NAME_MAX} characters; unique (any case) among your saved searches of the organization.`,
  });

const queryField = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(QUERY_MAX, `must be at most ${QUERY_MAX} characters`)
  .meta({ description: 'The words searched for, in the syntax of GET /search.' });

/** A search's filters without its organization: a saved search's organization is its scope. */
const filterFields = searchFilters.omit({ organizationId: true });

/** As GET /search takes them (`types` also comma-separated); from must not be after to. */
const filtersInput = filterFields
  .refine((filters) => !filters.from || !filters.to || filters.from <= filters.to, {
    path: ['to'],
    message: 'must not be before from',
  })
  .meta({ description: 'The filters of GET /search, except organizationId.' });

/**
 * The filters of a saved search as answered, and as stored (encoded: `types` a list, instants ISO
 * strings), so that they can be sent back to GET /search as they are.
 */
export const savedSearchFiltersSchema = filterFields
  .extend({
    types: z.array(z.enum(SEARCH_TYPES)).optional().meta({ description: 'Absent: all types.' }),
  })
  .meta({ id: 'SavedSearchFilters' });

export type SavedSearchFilters = z.output<typeof savedSearchFiltersSchema>;

export const createSavedSearchBody = z.object({
  organizationId: uuid().meta({ description: 'The organization searched (the caller must be a member).' }),
  name: nameField,
  query: queryField,
  filters: filtersInput.optional().meta({ description: 'Absent: none.' }),
});

export const updateSavedSearchBody = z
  .object({
    name: nameField.optional(),
    query: queryField.optional(),
    filters: filtersInput.optional().meta({ description: 'Replaces the filters when given (`{}`: none).' }),
  })
  .refine(someField, 'must change name, query or filters');

export type CreateSavedSearchInput = z.output<typeof createSavedSearchBody>;
export type UpdateSavedSearchInput = z.output<typeof updateSavedSearchBody>;

export const savedSearchSchema = z
  .object({
    id: uuid(),
    organizationId: uuid(),
    name: z.string(),
    query: z.string(),
    filters: savedSearchFiltersSchema,
    createdAt: timestamp(),
    updatedAt: timestamp(),
  })
  .meta({ id: 'SavedSearch' });

export type SavedSearchView = z.output<typeof savedSearchSchema>;

export const historyEntrySchema = z
  .object({
    id: uuid(),
    query: z.string(),
    filters: z
      .record(z.string(), z.unknown())
      .meta({ description: 'The filters the search was made with, as GET /search took them.' }),
    organizationId: uuid()
      .nullable()
      .meta({ description: 'The organization searched; null for all of yours.' }),
    resultCount: z.number().int(),
    createdAt: timestamp().meta({ description: 'When it was last searched.' }),
  })
  .meta({ id: 'SearchHistoryEntry' });

export const historyPage = paginated(historyEntrySchema);

export const clearedHistorySchema = z.object({
  deleted: z.number().int().meta({ description: 'How many entries were removed.' }),
});
