import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Field, FormError, submitWith } from '../../components/Form.tsx';
import { api, expectData } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/time.ts';

/** Links that open the meeting without an account: optional password, expiry and view cap. */
export function ShareLinks({ videoId }: { videoId: string }) {
  const queryClient = useQueryClient();
  const [password, setPassword] = useState('');
  const [expiresAt, setExpiresAt] = useState('');
  const [maxViews, setMaxViews] = useState('');
  const [created, setCreated] = useState<string | null>(null);
  const links = useQuery({
    queryKey: ['share-links', videoId],
    queryFn: async () =>
      expectData(await api.GET('/videos/{id}/share-links', { params: { path: { id: videoId } } })).data,
  });
  const changed = () => queryClient.invalidateQueries({ queryKey: ['share-links', videoId] });
  const create = useMutation({
    mutationFn: async () =>
      expectData(
        await api.POST('/videos/{id}/share-links', {
          params: { path: { id: videoId } },
          body: {
            ...(password ? { password } : {}),
            expiresAt: expiresAt ? new Date(expiresAt).toISOString() : null,
            maxViews: maxViews ? Number(maxViews) : null,
          },
        }),
      ),
    onSuccess: (link) => {
      setCreated(link.url);
      setPassword('');
      return changed();
    },
  });
  const revoke = useMutation({
    mutationFn: async (id: string) =>
      expectData(await api.DELETE('/share-links/{id}', { params: { path: { id } } })),
    onSuccess: changed,
  });
  const submit = submitWith(() => create.mutate());
  return (
    <section className="panel" aria-labelledby="share-heading">
      <details>
        <summary>
          <h2 id="share-heading" className="summary-heading">
            Share
          </h2>
        </summary>
        <form onSubmit={submit}>
          <Field
            label="Password (optional)"
            type="password"
            autoComplete="new-password"
            minLength={8}
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
          <Field
            label="Expires (optional)"
            type="datetime-local"
            value={expiresAt}
            onChange={(e) => setExpiresAt(e.target.value)}
          />
          <Field
            label="Most views (optional)"
            type="number"
            min={1}
            value={maxViews}
            onChange={(e) => setMaxViews(e.target.value)}
          />
          <FormError error={create.error} />
          <button type="submit" disabled={create.isPending}>
            Create share link
          </button>
        </form>
        {created && (
          <p className="notice" role="status">
            Link:{' '}
            <input readOnly aria-label="Share link" value={created} onFocus={(e) => e.target.select()} />
          </p>
        )}
        {links.data && links.data.length > 0 && (
          <ul className="share-links">
            {links.data.map((link) => (
              <li key={link.id}>
                {link.hasPassword ? 'Password · ' : ''}
                {link.viewCount} views{link.maxViews ? ` of ${link.maxViews}` : ''}
                {link.expiresAt ? ` · until ${formatDateTime(link.expiresAt)}` : ''}{' '}
                <button type="button" className="link-button" onClick={() => revoke.mutate(link.id)}>
                  Revoke
                </button>
              </li>
            ))}
          </ul>
        )}
      </details>
    </section>
  );
}
