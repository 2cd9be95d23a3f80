import { readFileSync } from 'node:fs';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../test/helpers/app.ts';
import { type SignedUpUser, signUpUser } from '../../test/helpers/factories.ts';
import { requester } from '../../test/helpers/requests.ts';
import { ROADMAP } from '../modules/chat/test-support.ts';
import { migrationsFolder } from './migrate.ts';
import { aiQuestions, chatMessages, videos } from './schema/index.ts';

/** The statements of migration 0021. */
const statements = readFileSync(path.join(migrationsFolder, '0021_citations_held_at.sql'), 'utf8')
  .split('--> statement-breakpoint')
  .map((statement) => statement.trim());

const GONE = '0193a0b4-7c1d-7e2f-8a3b-4c5d6e7f8091';

describe('migration 0021: stored citations get the day their meeting was held', () => {
  const ctx = useTestApp();
  const request = requester(ctx);
  let alice: SignedUpUser;
  let videoId: string;
  /** Runs migration 0021 as the migrator does: in one transaction, on one connection. */
  const backfill = () =>
    ctx().database.db.transaction(async (tx) => {
      for (const statement of statements) await tx.execute(sql.raw(statement));
    });

  beforeAll(async () => {
    alice = await signUpUser(ctx().app, { name: 'Alice' });
    const posted = await request(alice, 'POST', '/videos', {
      organizationId: alice.organizationId,
      title: 'Quarterly roadmap review',
      recordedAt: '2026-01-12T09:00:00.000Z',
      duration: '1:05',
      transcript: ROADMAP,
    });
    expect(posted.statusCode, posted.body).toBe(201);
    videoId = posted.json().id;
  });

  it('backfills answers stored before citations carried it, null where the video is gone', async () => {
    const { db } = ctx().database;
    const started = await request(alice, 'POST', '/chat/conversations', {
      message: 'When is the launch date?',
    });
    expect(started.statusCode, started.body).toBe(201);
    const conversationId = started.json().id as string;
    const legacy = (id: string) => ({
      source: 1,
      videoId: id,
      videoTitle: 'Quarterly roadmap review',
      start: 19.5,
      end: 31,
      speaker: 'Alice',
      quote: 'We agreed the launch date stays on the fifteenth of May, no matter what.',
    });
    // As stored before 0021: no heldAt; the second source's video has since been purged.
    const stored = [legacy(videoId), { ...legacy(GONE), source: 2 }];
    await db.update(chatMessages).set({ citations: stored }).where(eq(chatMessages.role, 'assistant'));
    await db
      .update(aiQuestions)
      .set({ citations: stored })
      .where(eq(aiQuestions.organizationId, alice.organizationId));

    await backfill();

    const expected = [
      { ...stored[0], heldAt: '2026-01-12T09:00:00.000Z' },
      { ...stored[1], heldAt: null },
    ];
    const read = await request(alice, 'GET', `/chat/conversations/${conversationId}`);
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json().messages[1].citations).toStrictEqual(expected);
    const [question] = await db
      .select({ citations: aiQuestions.citations })
      .from(aiQuestions)
      .where(eq(aiQuestions.organizationId, alice.organizationId));
    expect(question?.citations).toStrictEqual(expected);
    // A video added without a recording date was held when it was added.
    await db.update(videos).set({ recordedAt: null }).where(eq(videos.id, videoId));
    await db.update(aiQuestions).set({ citations: [legacy(videoId)] });
    await backfill();
    const [video] = await db
      .select({ createdAt: videos.createdAt })
      .from(videos)
      .where(eq(videos.id, videoId));
    const [again] = await db.select({ citations: aiQuestions.citations }).from(aiQuestions);
    expect(again?.citations).toStrictEqual([{ ...legacy(videoId), heldAt: video?.createdAt.toISOString() }]);
  });
});
