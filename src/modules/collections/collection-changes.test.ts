import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../../../test/helpers/app.ts';
import { collections, videos } from '../../db/schema/index.ts';
import {
  addVideos,
  createCollection,
  errorBody,
  eventsFor,
  insertVideos,
  isoDate,
  requester,
  type Team,
  team,
  unknownId,
} from './test-support.ts';

const pathsOf = (body: { details: Array<{ path: string }> }) =>
  body.details.map((detail) => detail.path).sort();

describe('collection changes', () => {
  const ctx = useTestApp();
  const request = requester(ctx);
  let crew: Team;

  beforeAll(async () => {
    crew = await team(ctx());
  });

  describe('PATCH /collections/{id}', () => {
    it('lets the creator change fields; null keeps name and isPublic and clears the texts', async () => {
      const collection = await createCollection(ctx, crew.member, {
        name: 'Old',
        organizationId: crew.organizationId,
        description: 'Words',
        thumbnailUrl: 'https://cdn.example.com/a.png',
        isPublic: true,
      });
      const renamed = await request('PATCH', `/collections/${collection.id}`, crew.member, {
        name: 'New',
        description: 'More words',
        extra: 'ignored',
      });
      expect(renamed.statusCode).toBe(200);
      expect(renamed.json()).toEqual({
        ...collection,
        name: 'New',
        description: 'More words',
        updatedAt: isoDate,
      });

      const cleared = await request('PATCH', `/collections/${collection.id}`, crew.member, {
        name: null,
        description: null,
        thumbnailUrl: null,
        isPublic: null,
      });
      expect(cleared.statusCode).toBe(200);
      const expected = {
        ...collection,
        name: 'New',
        description: null,
        thumbnailUrl: null,
        updatedAt: isoDate,
      };
      expect(cleared.json()).toEqual(expected);
      const readBack = await request('GET', `/collections/${collection.id}`, crew.member);
      expect(readBack.json()).toEqual({ ...expected, videos: [] });

      const unpublished = await request('PATCH', `/collections/${collection.id}`, crew.member, {
        isPublic: false,
      });
      expect(unpublished.json().isPublic).toBe(false);
      const events = await eventsFor(ctx(), collection.id, 'collection.updated');
      expect(events.map((event) => event.metadata.fields)).toEqual([
        ['name', 'description'],
        ['name', 'description', 'thumbnailUrl', 'isPublic'],
        ['isPublic'],
      ]);
    });

    it('lets an admin change anyone’s, and refuses other members and viewers with 403', async () => {
      const collection = await createCollection(ctx, crew.member, {
        name: 'Ours',
        organizationId: crew.organizationId,
      });
      const admin = await request('PATCH', `/collections/${collection.id}`, crew.admin, { name: 'By admin' });
      expect(admin.statusCode).toBe(200);
      expect(admin.json().name).toBe('By admin');
      const other = await createCollection(ctx, crew.admin, {
        name: 'Admin’s',
        organizationId: crew.organizationId,
      });
      for (const user of [crew.member, crew.viewer]) {
        const response = await request('PATCH', `/collections/${other.id}`, user, { name: 'Nope' });
        expect(response.statusCode).toBe(403);
        expect(response.json()).toEqual(errorBody('INSUFFICIENT_ROLE'));
      }
      expect((await request('GET', `/collections/${other.id}`, crew.member)).json().name).toBe('Admin’s');
    });

    it('answers 400 for invalid fields, 404 for outsiders and unknown ids, 401 without credentials', async () => {
      const collection = await createCollection(ctx, crew.member, {
        name: 'Keep',
        organizationId: crew.organizationId,
      });
      const invalid = await request('PATCH', `/collections/${collection.id}`, crew.member, {
        name: '',
        isPublic: 'no',
        thumbnailUrl: 7,
      });
      expect(invalid.statusCode).toBe(400);
      expect(pathsOf(invalid.json())).toEqual(['body.isPublic', 'body.name', 'body.thumbnailUrl']);
      for (const [user, id] of [
        [crew.outsider, collection.id],
        [crew.member, unknownId],
      ] as const) {
        const response = await request('PATCH', `/collections/${id}`, user, { name: 'X' });
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual(errorBody('NOT_FOUND', 'Collection not found'));
      }
      expect((await request('PATCH', `/collections/${collection.id}`, null, { name: 'X' })).statusCode).toBe(
        401,
      );
      expect((await request('GET', `/collections/${collection.id}`, crew.member)).json().name).toBe('Keep');
    });
  });

  describe('DELETE /collections/{id}', () => {
    it('deletes the grouping only: its videos stay, out of any collection', async () => {
      const collection = await createCollection(ctx, crew.member, {
        name: 'Doomed',
        organizationId: crew.organizationId,
        type: 'playlist',
      });
      const other = await createCollection(ctx, crew.member, {
        name: 'Other',
        organizationId: crew.organizationId,
      });
      const [a, b, c] = await insertVideos(ctx(), 3, crew.organizationId, crew.member.id);
      await addVideos(ctx, crew.member, collection.id, [a?.id, b?.id] as string[]);
      await addVideos(ctx, crew.member, other.id, [c?.id as string]);

      const response = await request('DELETE', `/collections/${collection.id}`, crew.member);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ id: collection.id, deleted: true });
      expect((await request('GET', `/collections/${collection.id}`, crew.member)).statusCode).toBe(404);

      const rows = await ctx()
        .database.db.select({
          id: videos.id,
          collectionId: videos.collectionId,
          position: videos.collectionPosition,
        })
        .from(videos)
        .where(eq(videos.organizationId, crew.organizationId));
      const byId = Object.fromEntries(rows.map((row) => [row.id, row]));
      expect(byId[a?.id as string]).toEqual({ id: a?.id, collectionId: null, position: null });
      expect(byId[b?.id as string]).toEqual({ id: b?.id, collectionId: null, position: null });
      expect(byId[c?.id as string]).toEqual({ id: c?.id, collectionId: other.id, position: 0 });
      expect(await eventsFor(ctx(), collection.id, 'collection.deleted')).toHaveLength(1);
    });

    it('lets an admin delete anyone’s; refuses other members (403), outsiders and unknown ids (404)', async () => {
      const collection = await createCollection(ctx, crew.member, {
        name: 'Mine',
        organizationId: crew.organizationId,
      });
      const memberOnly = await createCollection(ctx, crew.admin, {
        name: 'Admin',
        organizationId: crew.organizationId,
      });
      const refused = await request('DELETE', `/collections/${memberOnly.id}`, crew.member);
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toEqual(errorBody('INSUFFICIENT_ROLE'));
      for (const [user, id] of [
        [crew.outsider, collection.id],
        [crew.member, unknownId],
      ] as const) {
        const response = await request('DELETE', `/collections/${id}`, user);
        expect(response.statusCode).toBe(404);
        expect(response.json()).toEqual(errorBody('NOT_FOUND', 'Collection not found'));
      }
      expect((await request('DELETE', `/collections/${collection.id}`, null)).statusCode).toBe(401);
      const [stillThere] = await ctx()
        .database.db.select()
        .from(collections)
        .where(eq(collections.id, collection.id));
      expect(stillThere?.name).toBe('Mine');

      const byAdmin = await request('DELETE', `/collections/${collection.id}`, crew.admin);
      expect(byAdmin.statusCode).toBe(200);
      expect(byAdmin.json()).toEqual({ id: collection.id, deleted: true });
    });
  });
});
