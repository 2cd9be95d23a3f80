import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Field, FormError, submitWith } from '../../components/Form.tsx';
import { QueryView } from '../../components/States.tsx';
import { api, expectData, type Schemas } from '../../lib/api.ts';
import { useCurrent } from '../../lib/session.tsx';
import { formatDateTime } from '../../lib/time.ts';

type EventName = Schemas['Integration']['events'][number];
const EVENTS: EventName[] = [
  'video.created',
  'video.updated',
  'video.deleted',
  'transcript.ready',
  'knowledge.extracted',
  'comment.created',
  'clip.created',
  'member.joined',
  'member.left',
  'subscription.created',
  'subscription.updated',
  'subscription.canceled',
  'invoice.paid',
];

function EventChoice({
  chosen,
  onChange,
  withDigest,
}: {
  chosen: EventName[];
  onChange: (events: EventName[]) => void;
  withDigest: boolean;
}) {
  const events: EventName[] = withDigest ? [...EVENTS, 'digest.weekly'] : EVENTS;
  return (
    <fieldset className="events">
      <legend>Events</legend>
      {events.map((event) => (
        <label key={event} className="inline">
          <input
            type="checkbox"
            checked={chosen.includes(event)}
            onChange={(e) =>
              onChange(e.target.checked ? [...chosen, event] : chosen.filter((item) => item !== event))
            }
          />
          {event}
        </label>
      ))}
    </fieldset>
  );
}

function NewWebhook({ onCreated }: { onCreated: () => unknown }) {
  const { organization } = useCurrent();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventName[]>(['video.created', 'transcript.ready']);
  const create = useMutation({
    mutationFn: async () =>
      expectData(
        await api.POST('/integrations/webhooks', { body: { organizationId: organization.id, url, events } }),
      ),
    onSuccess: () => {
      setUrl('');
      return onCreated();
    },
  });
  const submit = submitWith(() => create.mutate());
  return (
    <details className="panel">
      <summary>Add a webhook</summary>
      <form onSubmit={submit}>
        <Field
          label="Endpoint URL"
          type="url"
          required
          placeholder="https://example.com/hooks/khub"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
        />
        <EventChoice chosen={events} onChange={setEvents} withDigest={false} />
        <FormError error={create.error} />
        <button type="submit" disabled={create.isPending || events.length === 0}>
          Add webhook
        </button>
      </form>
      {create.data && (
        <p className="notice" role="status">
          Signing secret (shown once; verify the <code>x-khub-signature</code> header with it):{' '}
          <input
            readOnly
            aria-label="Signing secret"
            value={create.data.secret}
            onFocus={(e) => e.target.select()}
          />
        </p>
      )}
    </details>
  );
}

function ConnectSlack({ onCreated }: { onCreated: () => unknown }) {
  const { organization } = useCurrent();
  const [webhookUrl, setWebhookUrl] = useState('');
  const [events, setEvents] = useState<EventName[]>(['video.created', 'digest.weekly']);
  const connect = useMutation({
    mutationFn: async () =>
      expectData(
        await api.POST('/integrations/slack', {
          body: { organizationId: organization.id, webhookUrl, events },
        }),
      ),
    onSuccess: () => {
      setWebhookUrl('');
      return onCreated();
    },
  });
  const submit = submitWith(() => connect.mutate());
  return (
    <details className="panel">
      <summary>Connect Slack</summary>
      <form onSubmit={submit}>
        <Field
          label="Slack incoming webhook URL"
          type="url"
          required
          placeholder="https://hooks.slack.com/services/…"
          value={webhookUrl}
          onChange={(e) => setWebhookUrl(e.target.value)}
        />
        <EventChoice chosen={events} onChange={setEvents} withDigest />
        <FormError error={connect.error} />
        <button type="submit" disabled={connect.isPending || events.length === 0}>
          Connect
        </button>
      </form>
    </details>
  );
}

/** Webhooks and Slack: what is connected, adding, removing. */
export function Integrations() {
  const { organization } = useCurrent();
  const queryClient = useQueryClient();
  const organizationId = organization.id;
  const integrations = useQuery({
    queryKey: ['integrations', organizationId],
    queryFn: async () =>
      expectData(await api.GET('/integrations', { params: { query: { organizationId } } })),
  });
  const changed = () => queryClient.invalidateQueries({ queryKey: ['integrations', organizationId] });
  const remove = useMutation({
    mutationFn: async (integration: Schemas['Integration']) =>
      integration.kind === 'slack'
        ? expectData(
            await api.DELETE('/integrations/slack/{id}', { params: { path: { id: integration.id } } }),
          )
        : expectData(
            await api.DELETE('/integrations/webhooks/{id}', { params: { path: { id: integration.id } } }),
          ),
    onSuccess: changed,
  });
  const manage = organization.role === 'owner' || organization.role === 'admin';
  return (
    <>
      <section className="panel" aria-labelledby="integrations-heading">
        <h2 id="integrations-heading">Connected</h2>
        <FormError error={remove.error} />
        <QueryView
          query={integrations}
          isEmpty={(data) => data.data.length === 0}
          empty="Nothing connected yet."
        >
          {(data) => (
            <ul>
              {data.data.map((integration) => (
                <li key={integration.id}>
                  <strong>{integration.kind === 'slack' ? 'Slack' : 'Webhook'}</strong>{' '}
                  <code>{integration.url}</code>{' '}
                  <span className="muted">
                    {integration.enabled
                      ? 'on'
                      : `off${integration.disabledReason ? `: ${integration.disabledReason}` : ''}`}
                    {integration.failingSince
                      ? ` · failing since ${formatDateTime(integration.failingSince)}`
                      : ''}{' '}
                    · {integration.events.join(', ')}
                  </span>{' '}
                  {manage && (
                    <button type="button" className="link-button" onClick={() => remove.mutate(integration)}>
                      Remove
                    </button>
                  )}
                </li>
              ))}
            </ul>
          )}
        </QueryView>
      </section>
      {manage && (
        <>
          <NewWebhook onCreated={changed} />
          <ConnectSlack onCreated={changed} />
        </>
      )}
    </>
  );
}
