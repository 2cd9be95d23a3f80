import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { api, expectData } from '../lib/api.ts';
import { useCurrent } from '../lib/session.tsx';
import { submitWith } from './Form.tsx';

/** Waits until typing pauses, so suggestions are asked once per word rather than per key. */
function useDebounced<T>(value: T, ms: number) {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** The search field in the top bar: suggestions as you type, Enter opens the results. */
export function SearchBox() {
  const { organization } = useCurrent();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [text, setText] = useState(params.get('q') ?? '');
  const typed = useDebounced(text.trim(), 200);
  const listId = useId();
  const suggestions = useQuery({
    queryKey: ['suggestions', organization.id, typed],
    enabled: typed.length >= 2,
    queryFn: async () =>
      expectData(
        await api.GET('/search/suggestions', {
          params: { query: { q: typed, organizationId: organization.id, limit: 8 } },
        }),
      ).data,
    staleTime: 30_000,
  });

  const submit = submitWith(() => {
    if (text.trim()) navigate(`/search?q=${encodeURIComponent(text.trim())}`);
  });

  return (
    <search className="search-box">
      <form onSubmit={submit}>
        <label htmlFor={`${listId}-input`} className="visually-hidden">
          Search meetings
        </label>
        <input
          id={`${listId}-input`}
          type="search"
          placeholder="Search what was said…"
          value={text}
          list={listId}
          autoComplete="off"
          onChange={(event) => setText(event.target.value)}
        />
        <datalist id={listId}>
          {(suggestions.data ?? []).map((suggestion) => (
            <option
              key={`${suggestion.type}:${suggestion.id}`}
              value={suggestion.text}
              label={suggestion.type}
            />
          ))}
        </datalist>
      </form>
    </search>
  );
}
