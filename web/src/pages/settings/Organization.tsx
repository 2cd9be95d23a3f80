import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { EmailField, Field, FormError, InlineSelect, submitWith } from '../../components/Form.tsx';
import { QueryView } from '../../components/States.tsx';
import { api, expectData, type Schemas } from '../../lib/api.ts';
import { useCurrent } from '../../lib/session.tsx';
import { formatDate } from '../../lib/time.ts';

type Role = Schemas['Member']['role'];
const ROLES: Role[] = ['owner', 'admin', 'member', 'viewer'];
const INVITABLE: Role[] = ['admin', 'member', 'viewer'];

const canManage = (role: Role) => role === 'owner' || role === 'admin';

function OrganizationDetails() {
  const { organization } = useCurrent();
  const queryClient = useQueryClient();
  const [name, setName] = useState(organization.name);
  const [retentionDays, setRetentionDays] = useState(String(organization.retentionDays));
  const update = useMutation({
    mutationFn: async () =>
      expectData(
        await api.PATCH('/organizations/{id}', {
          params: { path: { id: organization.id } },
          body: { name, retentionDays: Number(retentionDays) },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['organizations'] }),
  });
  const submit = submitWith(() => update.mutate());
  const editable = canManage(organization.role);
  return (
    <section className="panel" aria-labelledby="organization-heading">
      <h2 id="organization-heading">{organization.name}</h2>
      <p className="muted">Your role: {organization.role}</p>
      <form onSubmit={submit}>
        <fieldset disabled={!editable}>
          <Field
            label="Name"
            required
            maxLength={100}
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
          <Field
            label="Keep deleted meetings for (days)"
            type="number"
            min={1}
            required
            value={retentionDays}
            hint="A deleted meeting can be restored until then, and is purged after."
            onChange={(e) => setRetentionDays(e.target.value)}
          />
          <FormError error={update.error} />
          {editable && (
            <button type="submit" disabled={update.isPending}>
              {update.isSuccess ? 'Saved' : 'Save'}
            </button>
          )}
        </fieldset>
      </form>
    </section>
  );
}

function Members() {
  const { organization, user } = useCurrent();
  const queryClient = useQueryClient();
  const path = { id: organization.id };
  const members = useQuery({
    queryKey: ['members', organization.id],
    queryFn: async () =>
      expectData(await api.GET('/organizations/{id}/members', { params: { path, query: { limit: 100 } } }))
        .data,
  });
  const changed = () => queryClient.invalidateQueries({ queryKey: ['members', organization.id] });
  const changeRole = useMutation({
    mutationFn: async ({ userId, role }: { userId: string; role: Role }) =>
      expectData(
        await api.PATCH('/organizations/{id}/members/{userId}', {
          params: { path: { ...path, userId } },
          body: { role },
        }),
      ),
    onSuccess: changed,
  });
  const remove = useMutation({
    mutationFn: async (userId: string) =>
      expectData(
        await api.DELETE('/organizations/{id}/members/{userId}', { params: { path: { ...path, userId } } }),
      ),
    onSuccess: changed,
  });
  const manage = canManage(organization.role);
  return (
    <section className="panel" aria-labelledby="members-heading">
      <h2 id="members-heading">Members</h2>
      <FormError error={changeRole.error ?? remove.error} />
      <QueryView query={members}>
        {(data) => (
          <ul className="members">
            {data.map((member) => (
              <li key={member.userId}>
                <span>
                  {member.name} <span className="muted">{member.email}</span>
                </span>
                {manage && member.userId !== user.id ? (
                  <>
                    <InlineSelect
                      label={`Role of ${member.name}`}
                      value={member.role}
                      onChange={(role) => changeRole.mutate({ userId: member.userId, role: role as Role })}
                    >
                      {ROLES.map((role) => (
                        <option key={role}>{role}</option>
                      ))}
                    </InlineSelect>
                    <button
                      type="button"
                      className="link-button"
                      onClick={() => remove.mutate(member.userId)}
                    >
                      Remove
                    </button>
                  </>
                ) : (
                  <span className="muted">{member.role}</span>
                )}
              </li>
            ))}
          </ul>
        )}
      </QueryView>
    </section>
  );
}

function Invitations() {
  const { organization } = useCurrent();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const path = { id: organization.id };
  const invitations = useQuery({
    queryKey: ['invitations', organization.id],
    queryFn: async () =>
      expectData(
        await api.GET('/organizations/{id}/invitations', { params: { path, query: { limit: 100 } } }),
      ).data,
  });
  const invite = useMutation({
    mutationFn: async () =>
      expectData(
        await api.POST('/organizations/{id}/invitations', { params: { path }, body: { email, role } }),
      ),
    onSuccess: () => {
      setEmail('');
      return queryClient.invalidateQueries({ queryKey: ['invitations', organization.id] });
    },
  });
  const submit = submitWith(() => invite.mutate());
  return (
    <section className="panel" aria-labelledby="invite-heading">
      <h2 id="invite-heading">Invite someone</h2>
      <form onSubmit={submit} className="inline-form">
        <EmailField value={email} onChange={setEmail} />
        <InlineSelect label="Role" value={role} onChange={(value) => setRole(value as Role)}>
          {INVITABLE.map((value) => (
            <option key={value}>{value}</option>
          ))}
        </InlineSelect>
        <button type="submit" disabled={invite.isPending}>
          Send invitation
        </button>
      </form>
      <FormError error={invite.error} />
      {invite.isSuccess && (
        <p className="notice" role="status">
          Invitation sent.
        </p>
      )}
      <QueryView query={invitations} isEmpty={(data) => data.length === 0} empty="No invitations sent.">
        {(data) => (
          <ul>
            {data.map((invitation) => (
              <li key={invitation.id}>
                {invitation.email}{' '}
                <span className="muted">
                  {invitation.role} · {invitation.status} · until {formatDate(invitation.expiresAt)}
                </span>
              </li>
            ))}
          </ul>
        )}
      </QueryView>
    </section>
  );
}

function NewOrganization() {
  const { switchTo } = useCurrent();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const create = useMutation({
    mutationFn: async () => expectData(await api.POST('/organizations', { body: { name } })),
    onSuccess: async (organization) => {
      setName('');
      await queryClient.invalidateQueries({ queryKey: ['organizations'] });
      switchTo(organization.id);
    },
  });
  const submit = submitWith(() => create.mutate());
  return (
    <details className="panel">
      <summary>New organization</summary>
      <form onSubmit={submit} className="inline-form">
        <Field
          label="Organization name"
          required
          maxLength={100}
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
        <button type="submit" disabled={create.isPending}>
          Create
        </button>
      </form>
      <FormError error={create.error} />
    </details>
  );
}

/** The current organization: details, members and roles, invitations; a new organization. */
export function Organization() {
  const { organization } = useCurrent();
  return (
    <div className="columns">
      <div>
        <Members />
        {canManage(organization.role) && <Invitations />}
      </div>
      <div>
        <OrganizationDetails key={organization.id} />
        <NewOrganization />
      </div>
    </div>
  );
}
