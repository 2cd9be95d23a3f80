import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { operations } from '../../../sdk/index.ts';
import { FormError } from '../components/Form.tsx';
import { QueryView } from '../components/States.tsx';
import { api, expectData, type Schemas } from '../lib/api.ts';
import { formatDateTime } from '../lib/time.ts';

type Preferences = Schemas['NotificationPreferences']['preferences'];
type PreferencesChange = NonNullable<
  operations['setNotificationPreferences']['requestBody']
>['content']['application/json']['preferences'];
type NotificationType = keyof Preferences;

const TYPE_LABELS: Record<NotificationType, string> = {
  comment: 'Comments on your meetings',
  reply: 'Replies to your comments',
  mention: 'Mentions',
  channel_video: 'New meetings in channels you follow',
  invitation: 'Invitations',
  role_change: 'Changes to your role',
  ai_budget: 'AI budget warnings',
  billing: 'Billing',
  integration: 'Integrations that stopped working',
};

/** Where a notification leads: its meeting when it is about one. */
function targetLink(notification: Schemas['Notification']) {
  const videoId = (notification.data as { videoId?: unknown }).videoId;
  if (typeof videoId === 'string') return `/videos/${videoId}`;
  if (notification.targetType === 'video' && notification.targetId) return `/videos/${notification.targetId}`;
  return null;
}

function PreferencesForm() {
  const queryClient = useQueryClient();
  const preferences = useQuery({
    queryKey: ['notification-preferences'],
    queryFn: async () => expectData(await api.GET('/users/me/notification-preferences')).preferences,
  });
  const change = useMutation({
    mutationFn: async (patch: PreferencesChange) =>
      expectData(await api.PUT('/users/me/notification-preferences', { body: { preferences: patch } }))
        .preferences,
    onSuccess: (updated) => queryClient.setQueryData(['notification-preferences'], updated),
  });
  return (
    <section className="panel" aria-labelledby="preferences-heading">
      <h2 id="preferences-heading">What reaches you</h2>
      <FormError error={change.error} />
      <QueryView query={preferences}>
        {(data) => (
          <table>
            <thead>
              <tr>
                <th scope="col">Notification</th>
                <th scope="col">In the app</th>
                <th scope="col">By email</th>
              </tr>
            </thead>
            <tbody>
              {(Object.keys(TYPE_LABELS) as NotificationType[]).map((type) => (
                <tr key={type}>
                  <th scope="row">{TYPE_LABELS[type]}</th>
                  {(['inApp', 'email'] as const).map((channel) => (
                    <td key={channel}>
                      <input
                        type="checkbox"
                        aria-label={`${TYPE_LABELS[type]} ${channel === 'inApp' ? 'in the app' : 'by email'}`}
                        checked={data[type][channel]}
                        // Invitation mails always go out: they are how a person joins.
                        disabled={type === 'invitation' && channel === 'email'}
                        onChange={(event) =>
                          change.mutate({ [type]: { [channel]: event.target.checked } } as PreferencesChange)
                        }
                      />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </QueryView>
    </section>
  );
}

/** The caller's notifications (kept live by the stream the top bar holds), and their preferences. */
export function Notifications() {
  const queryClient = useQueryClient();
  const notifications = useQuery({
    queryKey: ['notifications', 'page'],
    queryFn: async () => expectData(await api.GET('/notifications', { params: { query: { limit: 50 } } })),
  });
  const changed = () => queryClient.invalidateQueries({ queryKey: ['notifications'] });
  const markRead = useMutation({
    mutationFn: async ({ id, read }: { id: string; read: boolean }) =>
      expectData(await api.PATCH('/notifications/{id}', { params: { path: { id } }, body: { read } })),
    onSuccess: changed,
  });
  const markAll = useMutation({
    mutationFn: async () => expectData(await api.POST('/notifications/read-all')),
    onSuccess: changed,
  });
  return (
    <div className="page">
      <header className="page-header">
        <h1>Notifications</h1>
      </header>
      <div className="columns">
        <section className="panel" aria-labelledby="inbox-heading">
          <div className="panel-header">
            <h2 id="inbox-heading">Inbox</h2>
            <button
              type="button"
              className="secondary"
              onClick={() => markAll.mutate()}
              disabled={markAll.isPending}
            >
              Mark all read
            </button>
          </div>
          <FormError error={markRead.error ?? markAll.error} />
          <QueryView
            query={notifications}
            isEmpty={(data) => data.data.length === 0}
            empty="No notifications yet."
          >
            {(data) => (
              <ul className="notifications">
                {data.data.map((notification) => {
                  const link = targetLink(notification);
                  return (
                    <li
                      key={notification.id}
                      className={`notification ${notification.read ? 'read' : 'unread'}`}
                    >
                      <p>
                        <strong>
                          {link ? <Link to={link}>{notification.title}</Link> : notification.title}
                        </strong>{' '}
                        <span className="muted">{formatDateTime(notification.createdAt)}</span>
                      </p>
                      <p>{notification.body}</p>
                      <button
                        type="button"
                        className="link-button"
                        onClick={() => markRead.mutate({ id: notification.id, read: !notification.read })}
                      >
                        {notification.read ? 'Mark unread' : 'Mark read'}
                      </button>
                    </li>
                  );
                })}
              </ul>
            )}
          </QueryView>
        </section>
        <PreferencesForm />
      </div>
    </div>
  );
}
