import { randomBytes } from 'node:crypto';
import type { Db } from '../../src/db/client.ts';
import { channels, series, videos } from '../../src/db/schema/index.ts';
import { formatTimestamp } from '../../src/modules/transcripts/format.ts';

/** Arrangement factories for library tests: rows inserted directly, bypassing the API. */

type Owned = { organizationId: string };

const suffix = () => randomBytes(3).toString('hex');

export async function createVideoRow(
  db: Db,
  values: Owned & { authorId: string } & Partial<typeof videos.$inferInsert>,
) {
  const [row] = await db
    .insert(videos)
    .values({ title: `Video ${suffix()}`, duration: '10:00', durationSeconds: 600, ...values })
    .returning();
  if (!row) throw new Error('video insert returned nothing');
  return row;
}

export async function createChannelRow(db: Db, values: Owned & Partial<typeof channels.$inferInsert>) {
  const [row] = await db
    .insert(channels)
    .values({ name: `Channel ${suffix()}`, ...values })
    .returning();
  if (!row) throw new Error('channel insert returned nothing');
  return row;
}

export async function createSeriesRow(db: Db, values: Owned & Partial<typeof series.$inferInsert>) {
  const [row] = await db
    .insert(series)
    .values({ name: `Series ${suffix()}`, ...values })
    .returning();
  if (!row) throw new Error('series insert returned nothing');
  return row;
}

/** WebVTT of `[speaker, text]` turns, `seconds` each (ten unless given). */
export const turnsVtt = (turns: Array<[string, string]>, seconds = 10) =>
  `WEBVTT\n\n${turns
    .map(
      ([speaker, text], at) =>
        `${formatTimestamp(at * seconds, '.')} --> ${formatTimestamp((at + 1) * seconds - 1, '.')}\n<v ${speaker}>${text}`,
    )
    .join('\n\n')}\n`;
