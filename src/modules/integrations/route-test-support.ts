import { setTimeout as sleep } from 'node:timers/promises';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { UUID_PATTERN } from '../../http/ids.ts';
import type { MailingTestApp } from '../organizations/test-support.ts';

/** Shared by the integration route tests. */
export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
export type Caller = { headers: Record<string, string> } | null;

export const anyId = expect.stringMatching(UUID_PATTERN);
export const secretPattern = /^whsec_[\w-]{32}$/;
export const UNKNOWN_ID = '01936c2e-7b1a-7c3d-9e4f-0a1b2c3d4e5f';
/** A public address (checked as a literal, without DNS). */
export const PUBLIC_URL = 'https://8.8.8.8/hooks/knowledge-hub';

export const clientOf =
  (ctx: () => MailingTestApp) => (method: Method, url: string, caller: Caller, payload?: object) =>
    ctx().app.inject({
      method,
      url,
      headers: caller?.headers ?? {},
      ...(payload === undefined ? {} : { payload }),
    });

export const pathsOf = (response: LightMyRequestResponse): string[] =>
  response.json().details.map((detail: { path: string }) => detail.path);

/** Waits until `probe` answers something (15 s at most): for work done by the background job. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/** Every table of the database (the job queue's included) whose rows contain `text` anywhere. */
export async function tablesHolding(testApp: MailingTestApp, text: string): Promise<string[]> {
  const { pool } = testApp.database;
  const { rows: tables } = await pool.query<{ name: string }>(
    `SELECT format('%I.%I', table_schema, table_name) AS name FROM information_schema.tables
      WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
  );
  const holding: string[] = [];
  for (const { name } of tables) {
    const { rows } = await pool.query<{ hits: number }>(
      `SELECT count(*)::int AS hits FROM ${name} AS row WHERE strpos(row::text, $1) > 0`,
      [text],
    );
    if ((rows[0]?.hits ?? 0) > 0) holding.push(name);
  }
  return holding;
}

/** The stored row of an integration, as the database has it. */
export async function storedRow(testApp: MailingTestApp, id: string): Promise<Record<string, unknown>> {
  const { rows } = await testApp.database.pool.query('SELECT * FROM integrations WHERE id = $1', [id]);
  expect(rows).toHaveLength(1);
  return rows[0] as Record<string, unknown>;
}
