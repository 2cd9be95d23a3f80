import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { FormError, InlineSelect, submitWith } from '../components/Form.tsx';
import { Highlighted } from '../components/Highlighted.tsx';
import { Pager } from '../components/Pager.tsx';
import { Empty, QueryView } from '../components/States.tsx';
import { api, expectData, type Schemas } from '../lib/api.ts';
import { useCurrent } from '../lib/session.tsx';
import { clockTime, formatDate, formatDateTime, momentLink } from '../lib/time.ts';

const TYPES = ['video', 'clip', 'comment', 'channel', 'series', 'collection'] as const;
const FILTERS = ['types', 'channelId', 'seriesId', 'speaker', 'from', 'to'] as const;

function resultLink(result: Schemas['SearchResult']) {
  if (result.videoId) return momentLink(result.videoId, result.moments?.[0]?.start ?? 0);
  if (result.type === 'series') return `/series/${result.id}`;
  if (result.type === 'collection') return `/collections/${result.id}`;
  return '/library';
}

function Result({ result }: { result: Schemas['SearchResult'] }) {
  return (
    <li className="result">
      <p className="meta">
        {result.type} · {formatDate(result.createdAt)}
      </p>
      <Link to={resultLink(result)} className="card-title">
        {result.title}
      </Link>
      <p>
        <Highlighted snippet={result.snippet} />
      </p>
      {result.videoId && result.moments && result.moments.length > 0 && (
        <ul className="moments" aria-label={`Moments in ${result.title}`}>
          {result.moments.map((moment) => (
            <li key={moment.start}>
              <Link to={momentLink(result.videoId as string, moment.start)} className="moment">
                {clockTime(moment.start)}
              </Link>{' '}
              {moment.speaker && <strong>{moment.speaker}: </strong>}
              <Highlighted snippet={moment.snippet} />
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

function SavedAndHistory({ organizationId }: { organizationId: string }) {
  const saved = useQuery({
    queryKey: ['saved-searches', organizationId],
    queryFn: async () =>
      expectData(await api.GET('/search/saved', { params: { query: { organizationId, limit: 20 } } })).data,
  });
  const history = useQuery({
    queryKey: ['search-history'],
    queryFn: async () =>
      expectData(await api.GET('/search/history', { params: { query: { limit: 10 } } })).data,
  });
  const link = (query: string, filters: Record<string, unknown>) => {
    const params = new URLSearchParams({ q: query });
    for (const key of FILTERS) {
      const value = filters[key];
      if (typeof value === 'string') params.set(key, value);
      else if (Array.isArray(value)) params.set(key, value.join(','));
    }
    return `/search?${params}`;
  };
  return (
    <aside className="search-side">
      <section className="panel" aria-labelledby="saved-heading">
        <h2 id="saved-heading">Saved searches</h2>
        <QueryView query={saved} isEmpty={(data) => data.length === 0} empty="None saved yet.">
          {(data) => (
            <ul>
              {data.map((item) => (
                <li key={item.id}>
                  <Link to={link(item.query, item.filters)}>{item.name}</Link>
                </li>
              ))}
            </ul>
          )}
        </QueryView>
      </section>
      <section className="panel" aria-labelledby="history-heading">
        <h2 id="history-heading">Recent searches</h2>
        <QueryView query={history} isEmpty={(data) => data.length === 0} empty="No searches yet.">
          {(data) => (
            <ul>
              {data.map((entry) => (
                <li key={entry.id}>
                  <Link to={link(entry.query, entry.filters)}>{entry.query}</Link>{' '}
                  <span className="muted">{formatDateTime(entry.createdAt)}</span>
                </li>
              ))}
            </ul>
          )}
        </QueryView>
      </section>
    </aside>
  );
}

/** Channel and series choices for the filters. */
function useGroups(organizationId: string) {
  const channels = useQuery({
    queryKey: ['channels', organizationId],
    queryFn: async () =>
      expectData(await api.GET('/channels', { params: { query: { organizationId, limit: 100 } } })).data,
  });
  const series = useQuery({
    queryKey: ['series', organizationId],
    queryFn: async () =>
      expectData(await api.GET('/series', { params: { query: { organizationId, limit: 100 } } })).data,
  });
  return { channels: channels.data ?? [], series: series.data ?? [] };
}

export function Search() {
  const { organization } = useCurrent();
  const queryClient = useQueryClient();
  const [params, setParams] = useSearchParams();
  const q = params.get('q')?.trim() ?? '';
  const page = Number(params.get('page') ?? '1') || 1;
  const filters = Object.fromEntries(
    FILTERS.flatMap((key) => (params.get(key) ? [[key, params.get(key) as string]] : [])),
  );
  const groups = useGroups(organization.id);
  const [draft, setDraft] = useState({
    speaker: filters.speaker ?? '',
    from: filters.from ?? '',
    to: filters.to ?? '',
  });

  const results = useQuery({
    queryKey: ['search', organization.id, q, page, filters],
    enabled: q.length > 0,
    queryFn: async () =>
      expectData(
        await api.GET('/search', {
          params: { query: { q, organizationId: organization.id, page, limit: 10, ...filters } },
        }),
      ),
    placeholderData: (previous) => previous,
  });
  const save = useMutation({
    mutationFn: async () =>
      expectData(
        await api.POST('/search/saved', {
          body: { organizationId: organization.id, name: q.slice(0, 100), query: q, filters },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['saved-searches', organization.id] }),
  });

  const set = (changes: Record<string, string>) => {
    const next = new URLSearchParams(params);
    for (const [key, value] of Object.entries(changes)) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    if (!('page' in changes)) next.delete('page');
    setParams(next);
  };
  const applyFilters = submitWith(() => set(draft));

  return (
    <div className="page">
      <header className="page-header">
        <h1>{q ? `Results for “${q}”` : 'Search'}</h1>
      </header>
      <div className="search-layout">
        <div>
          <form className="filters" onSubmit={applyFilters} aria-label="Filters">
            <InlineSelect
              label="Type"
              value={filters.types ?? ''}
              onChange={(value) => set({ types: value })}
            >
              <option value="">All</option>
              {TYPES.map((type) => (
                <option key={type} value={type}>
                  {type}
                </option>
              ))}
            </InlineSelect>
            {groups.channels.length > 0 && (
              <InlineSelect
                label="Channel"
                value={filters.channelId ?? ''}
                onChange={(value) => set({ channelId: value })}
              >
                <option value="">All</option>
                {groups.channels.map((channel) => (
                  <option key={channel.id} value={channel.id}>
                    {channel.name}
                  </option>
                ))}
              </InlineSelect>
            )}
            {groups.series.length > 0 && (
              <InlineSelect
                label="Series"
                value={filters.seriesId ?? ''}
                onChange={(value) => set({ seriesId: value })}
              >
                <option value="">All</option>
                {groups.series.map((item) => (
                  <option key={item.id} value={item.id}>
                    {item.name}
                  </option>
                ))}
              </InlineSelect>
            )}
            <label className="inline">
              Speaker{' '}
              <input
                value={draft.speaker}
                onChange={(e) => setDraft({ ...draft, speaker: e.target.value })}
              />
            </label>
            <label className="inline">
              From{' '}
              <input
                type="date"
                value={draft.from}
                onChange={(e) => setDraft({ ...draft, from: e.target.value })}
              />
            </label>
            <label className="inline">
              To{' '}
              <input
                type="date"
                value={draft.to}
                onChange={(e) => setDraft({ ...draft, to: e.target.value })}
              />
            </label>
            <button type="submit" className="secondary">
              Apply
            </button>
            {q && (
              <button
                type="button"
                className="secondary"
                onClick={() => save.mutate()}
                disabled={save.isPending || save.isSuccess}
              >
                {save.isSuccess ? 'Saved' : 'Save this search'}
              </button>
            )}
          </form>
          <FormError error={save.error} />
          {!q ? (
            <Empty>Type a word, a phrase in quotes, or a whole question in the search box above.</Empty>
          ) : (
            <QueryView
              query={results}
              isEmpty={(data) => data.data.length === 0}
              empty={
                <>
                  Nothing matches “{q}”. Try fewer words, or{' '}
                  <Link to={`/ask?q=${encodeURIComponent(q)}`}>ask it as a question</Link>.
                </>
              }
            >
              {(data) => (
                <>
                  <p className="muted" role="status">
                    {data.pagination.total === 1 ? '1 result' : `${data.pagination.total} results`}
                  </p>
                  <ol className="results">
                    {data.data.map((result) => (
                      <Result key={`${result.type}:${result.id}`} result={result} />
                    ))}
                  </ol>
                  <Pager
                    page={page}
                    totalPages={data.pagination.totalPages}
                    onPage={(next) => set({ page: String(next) })}
                  />
                </>
              )}
            </QueryView>
          )}
        </div>
        <SavedAndHistory organizationId={organization.id} />
      </div>
    </div>
  );
}
