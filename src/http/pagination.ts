import { z } from 'zod';

export const paginationQuery = z.object({
  page: z.coerce.number().int().min(1).default(1).meta({ description: 'Page number, from 1.' }),
  limit: z.coerce.number().int().min(1).max(100).default(20).meta({ description: 'Items per page, 1–100.' }),
});

export type PageRequest = z.infer<typeof paginationQuery>;

export const paginationSchema = z
  .object({
    page: z.number().int(),
    limit: z.number().int(),
    total: z.number().int(),
    totalPages: z.number().int(),
  })
  .meta({ id: 'Pagination' });

export type Page<T> = { data: T[]; pagination: z.infer<typeof paginationSchema> };

/** The response schema of a list endpoint: `{data: T[], pagination}`. */
export const paginated = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), pagination: paginationSchema });

/** LIMIT/OFFSET for SQL. */
export const pageBounds = ({ page, limit }: PageRequest) => ({ limit, offset: (page - 1) * limit });

export function toPage<T>(data: T[], total: number, { page, limit }: PageRequest): Page<T> {
  return { data, pagination: { page, limit, total, totalPages: Math.ceil(total / limit) } };
}
