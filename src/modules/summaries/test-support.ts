import { readFileSync } from 'node:fs';
import type { TestApp } from '../../../test/helpers/app.ts';
import { aiUsage } from '../../db/schema/index.ts';
import { budgetPeriod } from '../ai/budget.ts';
import { parseTranscript } from '../transcripts/parse.ts';
import { storeSegments } from '../transcripts/service.ts';

export const ROADMAP = readFileSync(
  new URL('../search/fixtures/roadmap-review.vtt', import.meta.url),
  'utf8',
);

/** Moves the test clock to an instant (plus the milliseconds the test takes). */
export const moveClockTo = (testApp: TestApp, instant: string) => {
  testApp.clock.reset();
  testApp.clock.advance(new Date(instant).getTime() - Date.now());
};

/**
 * Stores a transcript's segments, speakers and passages for a video, as retrieval, the answer
 * engine and the day's speaker count read them, without asking for knowledge extraction: the
 * tests arrange knowledge themselves (insertKnowledge), and an extraction job finishing later
 * would replace it.
 */
export async function storePassages(
  testApp: TestApp,
  video: { id: string; organizationId: string },
  transcript: string,
) {
  const { segments } = await parseTranscript(transcript);
  await testApp.database.db.transaction((tx) => storeSegments(tx, video, segments));
}

/** Uses up the organization's credits for the clock's month, leaving `left`. */
export async function spendCredits(testApp: TestApp, organizationId: string, left = 0) {
  const { period } = budgetPeriod(testApp.clock.now());
  await testApp.database.db.insert(aiUsage).values({
    organizationId,
    period,
    feature: 'qa',
    credits: testApp.config.aiMonthlyCredits - left,
    operations: 1,
    updatedAt: testApp.clock.now(),
  });
}
