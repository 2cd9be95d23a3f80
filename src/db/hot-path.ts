import type { Column } from 'drizzle-orm';
import pg from 'pg';
import type { Db, Tx } from './client.ts';

/**
 * The statements every authenticated read runs (the caller's session, a video with the caller's
 * role, or both in one) go straight to `pg` as named prepared statements: drizzle's query and row
 * mapping cost about a tenth of such a request's CPU (docs/benchmarks.md, "the read path against
 * its floor"). The SQL is built from the drizzle table definitions, so the rows keep drizzle's keys
 * and the schema stays the one source of truth.
 */

/** `alias."column" AS "key"` for each of `columns` (a table's, or a chosen few): raw rows keyed as drizzle keys them. */
export function selectColumns(columns: Record<string, Column>, alias: string, keyPrefix = ''): string {
  return Object.entries(columns)
    .map(([key, column]) => `${alias}."${column.name}" AS "${keyPrefix}${key}"`)
    .join(', ');
}

/** The pool behind the root database handle; null inside a transaction (which must use its own client). */
export function poolOf(db: Db | Tx): pg.Pool | null {
  const client = (db as { $client?: unknown }).$client;
  return client instanceof pg.Pool ? client : null;
}

/** Runs a named (prepared once per connection) statement and returns its rows. */
export async function runPrepared<Row>(pool: pg.Pool, name: string, text: string, values: unknown[]) {
  return (await pool.query<Row & pg.QueryResultRow>({ name, text, values })).rows;
}

/**
 * `json_build_object('key', alias."column", …)` (and `more` keys, SQL expressions): a row as one
 * json value. `pg` parses each result's row description on every execution and works per field, so
 * a wide row read on a hot path costs less as one field; `rowReader` reads it back.
 */
export function jsonObjectOf(
  columns: Record<string, Column>,
  alias: string,
  more: Record<string, string> = {},
): string {
  const pairs = [
    ...Object.entries(columns).map(([key, column]) => `'${key}', ${alias}."${column.name}"`),
    ...Object.entries(more).map(([key, expression]) => `'${key}', ${expression}`),
  ];
  return `json_build_object(${pairs.join(', ')})`;
}

/** Reads back a `jsonObjectOf` row as drizzle returns it: timestamps (ISO text in JSON) as Dates. */
export function rowReader<Row>(columns: Record<string, Column>) {
  const dateKeys = Object.entries(columns)
    .filter(([, column]) => column.dataType === 'date')
    .map(([key]) => key);
  return (json: Record<string, unknown>): Row => {
    for (const key of dateKeys) {
      const value = json[key];
      if (typeof value === 'string') json[key] = new Date(value);
    }
    return json as Row;
  };
}
