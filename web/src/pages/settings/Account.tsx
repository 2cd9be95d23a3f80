import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Field, FormError, submitWith } from '../../components/Form.tsx';
import { QueryView } from '../../components/States.tsx';
import { api, expectData } from '../../lib/api.ts';
import { useCurrent } from '../../lib/session.tsx';
import { formatDate, formatDateTime } from '../../lib/time.ts';

function Profile() {
  const { user } = useCurrent();
  const queryClient = useQueryClient();
  const [name, setName] = useState(user.name);
  const update = useMutation({
    mutationFn: async () => expectData(await api.PATCH('/users/me', { body: { name } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['session'] }),
  });
  const submit = submitWith(() => update.mutate());
  return (
    <section className="panel" aria-labelledby="profile-heading">
      <h2 id="profile-heading">Profile</h2>
      <form onSubmit={submit}>
        <Field label="Name" required maxLength={100} value={name} onChange={(e) => setName(e.target.value)} />
        <p className="muted">Email: {user.email}</p>
        <FormError error={update.error} />
        <button type="submit" disabled={update.isPending}>
          {update.isSuccess ? 'Saved' : 'Save'}
        </button>
      </form>
    </section>
  );
}

function ApiKeys() {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [shown, setShown] = useState<string | null>(null);
  const keys = useQuery({
    queryKey: ['api-keys'],
    queryFn: async () => expectData(await api.GET('/users/me/api-keys')).data,
  });
  const changed = () => queryClient.invalidateQueries({ queryKey: ['api-keys'] });
  const create = useMutation({
    mutationFn: async () => expectData(await api.POST('/users/me/api-keys', { body: { name } })),
    onSuccess: (key) => {
      setShown(key.key);
      setName('');
      return changed();
    },
  });
  const remove = useMutation({
    mutationFn: async (id: string) =>
      expectData(await api.DELETE('/users/me/api-keys/{id}', { params: { path: { id } } })),
    onSuccess: changed,
  });
  const submit = submitWith(() => create.mutate());
  return (
    <section className="panel" aria-labelledby="keys-heading">
      <h2 id="keys-heading">API keys</h2>
      <form onSubmit={submit} className="inline-form">
        <Field
          label="New key's name"
          required
          maxLength={100}
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
        <button type="submit" disabled={create.isPending}>
          Create key
        </button>
      </form>
      <FormError error={create.error} />
      {shown && (
        <p className="notice" role="status">
          Copy this key now; it is not shown again:{' '}
          <input readOnly aria-label="New API key" value={shown} onFocus={(e) => e.target.select()} />
        </p>
      )}
      <QueryView query={keys} isEmpty={(data) => data.length === 0} empty="No API keys.">
        {(data) => (
          <ul>
            {data.map((key) => (
              <li key={key.id}>
                <strong>{key.name}</strong> <code>{key.prefix}…</code>{' '}
                <span className="muted">
                  created {formatDate(key.createdAt)}
                  {key.lastUsedAt ? ` · used ${formatDateTime(key.lastUsedAt)}` : ' · never used'}
                </span>{' '}
                <button type="button" className="link-button" onClick={() => remove.mutate(key.id)}>
                  Delete
                </button>
              </li>
            ))}
          </ul>
        )}
      </QueryView>
    </section>
  );
}

function Sessions() {
  const queryClient = useQueryClient();
  const sessions = useQuery({
    queryKey: ['sessions'],
    queryFn: async () => expectData(await api.GET('/users/me/sessions')).data,
  });
  const changed = () => queryClient.invalidateQueries({ queryKey: ['sessions'] });
  const revoke = useMutation({
    mutationFn: async (id: string) =>
      expectData(await api.DELETE('/users/me/sessions/{id}', { params: { path: { id } } })),
    onSuccess: changed,
  });
  const revokeOthers = useMutation({
    mutationFn: async () => expectData(await api.DELETE('/users/me/sessions')),
    onSuccess: changed,
  });
  return (
    <section className="panel" aria-labelledby="sessions-heading">
      <div className="panel-header">
        <h2 id="sessions-heading">Where you are signed in</h2>
        <button
          type="button"
          className="secondary"
          onClick={() => revokeOthers.mutate()}
          disabled={revokeOthers.isPending}
        >
          Sign out everywhere else
        </button>
      </div>
      <FormError error={revoke.error ?? revokeOthers.error} />
      <QueryView query={sessions}>
        {(data) => (
          <ul>
            {data.map((session) => (
              <li key={session.id}>
                {session.userAgent ?? 'Unknown browser'}{' '}
                <span className="muted">
                  {session.ip ?? ''} · last used {formatDateTime(session.lastUsedAt)}
                </span>{' '}
                {session.current ? (
                  <strong>this browser</strong>
                ) : (
                  <button type="button" className="link-button" onClick={() => revoke.mutate(session.id)}>
                    Sign out
                  </button>
                )}
              </li>
            ))}
          </ul>
        )}
      </QueryView>
    </section>
  );
}

/** The signed-in person's own settings. */
export function Account() {
  return (
    <div className="columns">
      <div>
        <Profile />
        <Sessions />
      </div>
      <div>
        <ApiKeys />
      </div>
    </div>
  );
}
