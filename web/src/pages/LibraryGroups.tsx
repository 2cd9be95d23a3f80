import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { Field, FormError, InlineSelect, submitWith } from '../components/Form.tsx';
import { QueryView } from '../components/States.tsx';
import { api, expectData } from '../lib/api.ts';
import { formatDate } from '../lib/time.ts';

export function Channels({ organizationId }: { organizationId: string }) {
  const queryClient = useQueryClient();
  const channels = useQuery({
    queryKey: ['channels', organizationId],
    queryFn: async () =>
      expectData(await api.GET('/channels', { params: { query: { organizationId, limit: 50 } } })).data,
  });
  const follow = useMutation({
    mutationFn: async ({ id, following }: { id: string; following: boolean }) =>
      following
        ? expectData(await api.DELETE('/channels/{id}/follow', { params: { path: { id } } }))
        : expectData(await api.POST('/channels/{id}/follow', { params: { path: { id } } })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['channels', organizationId] }),
  });
  return (
    <section className="panel" aria-labelledby="channels-heading">
      <h2 id="channels-heading">Channels</h2>
      <QueryView query={channels} isEmpty={(data) => data.length === 0} empty="No channels yet.">
        {(data) => (
          <ul>
            {data.map((channel) => (
              <li key={channel.id}>
                {channel.name} <span className="muted">({channel.videoCount})</span>{' '}
                <button
                  type="button"
                  className="link-button"
                  aria-pressed={channel.following}
                  onClick={() => follow.mutate({ id: channel.id, following: channel.following })}
                >
                  {channel.following ? 'Following' : 'Follow'}
                </button>
              </li>
            ))}
          </ul>
        )}
      </QueryView>
    </section>
  );
}

export function SeriesList({ organizationId }: { organizationId: string }) {
  const series = useQuery({
    queryKey: ['series', organizationId],
    queryFn: async () =>
      expectData(await api.GET('/series', { params: { query: { organizationId, limit: 50 } } })).data,
  });
  return (
    <section className="panel" aria-labelledby="series-heading">
      <h2 id="series-heading">Series</h2>
      <QueryView query={series} isEmpty={(data) => data.length === 0} empty="No recurring meetings yet.">
        {(data) => (
          <ul>
            {data.map((item) => (
              <li key={item.id}>
                <Link to={`/series/${item.id}`}>{item.name}</Link>{' '}
                <span className="muted">
                  {item.cadence} · {item.videoCount} meetings
                  {item.lastRecordedAt ? ` · last ${formatDate(item.lastRecordedAt)}` : ''}
                </span>
              </li>
            ))}
          </ul>
        )}
      </QueryView>
    </section>
  );
}

function NewCollection({ organizationId }: { organizationId: string }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [type, setType] = useState<'playlist' | 'folder'>('playlist');
  const create = useMutation({
    mutationFn: async () =>
      expectData(await api.POST('/collections', { body: { name, type, organizationId } })),
    onSuccess: () => {
      setName('');
      return queryClient.invalidateQueries({ queryKey: ['collections', organizationId] });
    },
  });
  const submit = submitWith(() => create.mutate());
  return (
    <details>
      <summary>New collection</summary>
      <form onSubmit={submit}>
        <Field label="Name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        <InlineSelect label="Kind" value={type} onChange={(value) => setType(value as 'playlist' | 'folder')}>
          <option value="playlist">Playlist (watched in order, with progress)</option>
          <option value="folder">Folder</option>
        </InlineSelect>{' '}
        <button type="submit" disabled={create.isPending}>
          Create
        </button>
        <FormError error={create.error} />
      </form>
    </details>
  );
}

export function Collections({ organizationId }: { organizationId: string }) {
  const collections = useQuery({
    queryKey: ['collections', organizationId],
    queryFn: async () =>
      expectData(await api.GET('/collections', { params: { query: { organizationId, limit: 50 } } })).data,
  });
  return (
    <section className="panel" aria-labelledby="collections-heading">
      <h2 id="collections-heading">Collections</h2>
      <QueryView
        query={collections}
        isEmpty={(data) => data.length === 0}
        empty="No folders or playlists yet."
      >
        {(data) => (
          <ul>
            {data.map((collection) => (
              <li key={collection.id}>
                <Link to={`/collections/${collection.id}`}>{collection.name}</Link>{' '}
                <span className="muted">
                  {collection.type} · {collection.videoCount} meetings
                </span>
              </li>
            ))}
          </ul>
        )}
      </QueryView>
      <NewCollection organizationId={organizationId} />
    </section>
  );
}
