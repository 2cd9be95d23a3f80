import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { TestApp } from '../../../test/helpers/app.ts';
import type { SignedUpUser } from '../../../test/helpers/factories.ts';
import { requester } from '../../../test/helpers/requests.ts';

export const ROADMAP = readFileSync(
  new URL('../search/fixtures/roadmap-review.vtt', import.meta.url),
  'utf8',
);
export { isoDate } from '../../../test/helpers/assertions.ts';
export const anyId = expect.stringMatching(/^[0-9a-f-]{36}$/);

/** Posts a video with a transcript through the API, in the user's personal organization unless told. */
export async function postVideo(
  ctx: () => TestApp,
  user: SignedUpUser,
  fields: { title: string; transcript: string; organizationId?: string },
) {
  const response = await requester(ctx)(user, 'POST', '/videos', {
    organizationId: user.organizationId,
    duration: '1:05',
    ...fields,
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().id as string;
}

export type ServerEvent = { event: string; data: unknown };

/** The events of a complete server-sent event body. */
export function parseEvents(body: string): ServerEvent[] {
  return body
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const fields = Object.fromEntries(
        block.split('\n').map((line) => {
          const colon = line.indexOf(':');
          return [line.slice(0, colon), line.slice(colon + 1).trimStart()];
        }),
      );
      return { event: fields.event ?? 'message', data: JSON.parse(fields.data ?? 'null') };
    });
}
