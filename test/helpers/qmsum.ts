import { readFileSync } from 'node:fs';
import {
  type QmsumFile,
  type QmsumQuestion,
  qmsumQuestions,
  qmsumTranscript,
} from '../../scripts/seed/qmsum.ts';
import type { App } from '../../src/app.ts';
import type { SignedUpUser } from './factories.ts';

/**
 * Real meetings shipped with the tests (QMSum, MIT; test/fixtures/qmsum-meetings): a product
 * design, a research and a committee meeting — one of each kind the evaluations use.
 */
export const QMSUM_MEETINGS = ['IS1004a', 'Bro008', 'education_19'] as const;

export const qmsumFixture = (name: string) =>
  JSON.parse(
    readFileSync(new URL(`../fixtures/qmsum-meetings/${name}.json`, import.meta.url), 'utf8'),
  ) as QmsumFile;

export type LoadedQmsumMeeting = { name: string; videoId: string; questions: QmsumQuestion[] };

/** The shipped QMSum meetings posted as `user`'s videos (in their organization), with their questions. */
export async function postQmsumMeetings(app: App, user: SignedUpUser): Promise<LoadedQmsumMeeting[]> {
  const loaded: LoadedQmsumMeeting[] = [];
  for (const name of QMSUM_MEETINGS) {
    const json = qmsumFixture(name);
    const meeting = qmsumTranscript(json, name);
    if (!meeting) throw new Error(`${name} has no transcript`);
    const response = await app.inject({
      method: 'POST',
      url: '/videos',
      headers: user.headers,
      payload: {
        organizationId: user.organizationId,
        title: meeting.title,
        duration: meeting.duration,
        transcript: meeting.transcript,
      },
    });
    if (response.statusCode !== 201)
      throw new Error(`POST /videos for ${name}: ${response.statusCode} ${response.body}`);
    loaded.push({ name, videoId: response.json().id, questions: qmsumQuestions(json, meeting) });
  }
  return loaded;
}
