import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { AppContext } from '../../context.ts';
import { authenticated, callerId, requireAuth, security } from '../../http/auth.ts';
import { errorResponses } from '../../http/errors.ts';
import { idParams } from '../../http/ids.ts';
import { paginated, paginationQuery } from '../../http/pagination.ts';
import { acceptInvitation, createInvitation, deleteInvitation, listInvitations } from './invitations.ts';
import { listMembers, removeMember, updateMemberRole } from './members.ts';
import {
  acceptedInvitationSchema,
  createInvitationBody,
  createOrganizationBody,
  deletedSchema,
  invitationParams,
  invitationSchema,
  memberParams,
  memberSchema,
  organizationSchema,
  removedMemberSchema,
  tokenParams,
  updateMemberBody,
  updateOrganizationBody,
} from './schemas.ts';
import {
  createOrganizationFor,
  deleteOrganization,
  getOrganization,
  listOrganizations,
  updateOrganization,
} from './service.ts';

const tags = ['Organizations'];

/**
 * Routes for organizations, members and invitations. Every one needs a signed-in caller; roles
 * are checked by the services. A path-addressed organization the caller is not a member of is a 404.
 */
export const organizationRoutes: FastifyPluginAsyncZod<{ context: AppContext }> = async (
  app,
  { context },
) => {
  app.addHook('onRequest', authenticated);

  app.post(
    '/organizations',
    {
      schema: {
        tags,
        summary: 'Create an organization; the caller becomes its owner',
        security,
        body: createOrganizationBody,
        response: { 201: organizationSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await createOrganizationFor(context, callerId(request), request.body)),
  );

  app.get(
    '/organizations',
    {
      schema: {
        tags,
        summary: "The caller's organizations with their role, oldest membership first",
        security,
        querystring: paginationQuery,
        response: { 200: paginated(organizationSchema), ...errorResponses(400, 401) },
      },
    },
    async (request) => listOrganizations(context.db, callerId(request), request.query),
  );

  app.get(
    '/organizations/:id',
    {
      schema: {
        tags,
        summary: 'An organization the caller belongs to',
        security,
        params: idParams,
        response: { 200: organizationSchema, ...errorResponses(401, 404) },
      },
    },
    async (request) => getOrganization(context.db, callerId(request), request.params.id),
  );

  app.patch(
    '/organizations/:id',
    {
      schema: {
        tags,
        summary: 'Change the name, slug or video retention of an organization (admin or owner)',
        security,
        params: idParams,
        body: updateOrganizationBody,
        response: { 200: organizationSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => updateOrganization(context, callerId(request), request.params.id, request.body),
  );

  app.delete(
    '/organizations/:id',
    {
      schema: {
        tags,
        summary: 'Delete an organization and everything it owns (owner only)',
        security,
        params: idParams,
        response: { 200: deletedSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => deleteOrganization(context, callerId(request), request.params.id),
  );

  app.get(
    '/organizations/:id/members',
    {
      schema: {
        tags,
        summary: 'The members of an organization, in the order they joined',
        security,
        params: idParams,
        querystring: paginationQuery,
        response: { 200: paginated(memberSchema), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => listMembers(context.db, callerId(request), request.params.id, request.query),
  );

  app.patch(
    '/organizations/:id/members/:userId',
    {
      schema: {
        tags,
        summary:
          "Change a member's role (admins manage non-owners; only owners grant or take the owner role; the last owner stays)",
        security,
        params: memberParams,
        body: updateMemberBody,
        response: { 200: memberSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      updateMemberRole(
        context,
        callerId(request),
        request.params.id,
        request.params.userId,
        request.body.role,
      ),
  );

  app.delete(
    '/organizations/:id/members/:userId',
    {
      schema: {
        tags,
        summary:
          'Remove a member, or leave with your own userId (admins remove non-owners, owners anyone; the last owner stays)',
        security,
        params: memberParams,
        response: { 200: removedMemberSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => removeMember(context, callerId(request), request.params.id, request.params.userId),
  );

  app.post(
    '/organizations/:id/invitations',
    {
      schema: {
        tags,
        summary: 'Invite someone by email (admin or owner; an owner invitation needs an owner); valid 7 days',
        security,
        params: idParams,
        body: createInvitationBody,
        response: { 201: invitationSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { user } = requireAuth(request);
      return reply.status(201).send(await createInvitation(context, user, request.params.id, request.body));
    },
  );

  app.get(
    '/organizations/:id/invitations',
    {
      schema: {
        tags,
        summary: "An organization's invitations, newest first (admin or owner)",
        security,
        params: idParams,
        querystring: paginationQuery,
        response: { 200: paginated(invitationSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => listInvitations(context, callerId(request), request.params.id, request.query),
  );

  app.delete(
    '/organizations/:id/invitations/:invitationId',
    {
      schema: {
        tags,
        summary: 'Revoke an invitation (admin or owner)',
        security,
        params: invitationParams,
        response: { 200: deletedSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) =>
      deleteInvitation(context, callerId(request), request.params.id, request.params.invitationId),
  );

  app.post(
    '/invitations/:token/accept',
    {
      schema: {
        tags,
        summary:
          'Accept an invitation sent to your email; an unknown, used or expired token is a 404 INVITATION_NOT_FOUND',
        security,
        params: tokenParams,
        response: { 201: acceptedInvitationSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { user } = requireAuth(request);
      return reply.status(201).send(await acceptInvitation(context, user, request.params.token));
    },
  );
};
