import openapiTS from 'openapi-typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../test/helpers/app.ts';
import { createKnowledgeHubClient, expectData, KnowledgeHubError } from './index.ts';

const HEADER = '// Generated from /openapi.json by `npm run generate:sdk`: do not edit.\n';

describe('TypeScript SDK', () => {
  const ctx = useTestApp();
  let address: string;
  beforeAll(async () => {
    address = await ctx().app.listen({ port: 0, host: '127.0.0.1' });
  });

  it('is generated from the current OpenAPI document (run `npm run generate:sdk` after changing a route)', async () => {
    const document = (await ctx().app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const generated = await openapiTS(document, { exportType: false });
    await expect(HEADER + generated).toMatchFileSnapshot('./schema.ts');
  });

  it('signs up, creates a video and lists it through a real HTTP server, typed end to end', async () => {
    const anonymous = createKnowledgeHubClient({ baseUrl: address });

    const signedUp = expectData(
      await anonymous.POST('/auth/sign-up', {
        body: { email: 'sdk@example.com', password: 'correct horse battery', name: 'Sdk User' },
      }),
    );
    const organizationId = signedUp.data.user.defaultOrganizationId as string;
    const hub = createKnowledgeHubClient({ baseUrl: address, apiKey: signedUp.data.session.sessionId });

    const video = expectData(
      await hub.POST('/videos', {
        body: {
          title: 'Quarterly planning',
          duration: '12:00',
          organizationId,
          transcript: 'Ada: We ship in May.',
        },
      }),
    );
    const listed = expectData(await hub.GET('/videos', { params: { query: { organizationId, limit: 5 } } }));
    expect(listed.data.map((item) => item.id)).toEqual([video.id]);
    expect(listed.pagination).toEqual({ page: 1, limit: 5, total: 1, totalPages: 1 });
    const deleted = expectData(await hub.DELETE('/videos/{id}', { params: { path: { id: video.id } } }));
    expect(deleted).toMatchObject({ id: video.id, isDeleted: true });
  });

  it('throws the API error with its message, code and status', async () => {
    const anonymous = createKnowledgeHubClient({ baseUrl: address });
    const error = await anonymous
      .GET('/videos')
      .then(expectData)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(KnowledgeHubError);
    expect(error).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
  });
});
