import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { NavLink, Outlet, useNavigate } from 'react-router';
import { api, expectData } from '../lib/api.ts';
import { useCurrent, useSessionChanged } from '../lib/session.tsx';
import { SearchBox } from './SearchBox.tsx';

const NAV = [
  { to: '/', label: 'Home' },
  { to: '/library', label: 'Library' },
  { to: '/search', label: 'Search' },
  { to: '/ask', label: 'Ask' },
  { to: '/knowledge', label: 'Knowledge' },
  { to: '/analytics', label: 'Analytics' },
  { to: '/activity', label: 'Activity' },
  { to: '/settings', label: 'Settings' },
];

/** Unread notifications, kept live by the service's event stream. */
function useUnreadCount() {
  const queryClient = useQueryClient();
  useEffect(() => {
    const stream = new EventSource('/notifications/stream');
    const refresh = () => queryClient.invalidateQueries({ queryKey: ['notifications'] });
    stream.addEventListener('notification', refresh);
    return () => stream.close();
  }, [queryClient]);
  return useQuery({
    queryKey: ['notifications', 'unread'],
    queryFn: async () =>
      expectData(await api.GET('/notifications', { params: { query: { unread: 'true', limit: 1 } } }))
        .unreadCount,
  });
}

export function Layout() {
  const { user, organizations, organization, switchTo } = useCurrent();
  const navigate = useNavigate();
  const sessionChanged = useSessionChanged();
  const unread = useUnreadCount();
  const signOut = useMutation({
    mutationFn: async () => expectData(await api.POST('/auth/sign-out')),
    onSettled: async () => {
      await sessionChanged();
      navigate('/sign-in');
    },
  });

  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <NavLink to="/" className="brand">
          Knowledge Hub
        </NavLink>
        <nav aria-label="Main">
          <ul className="nav-list">
            {NAV.map((item) => (
              <li key={item.to}>
                <NavLink to={item.to} end={item.to === '/'}>
                  {item.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
        <SearchBox />
        <div className="account">
          <NavLink
            to="/notifications"
            className="badge-link"
            aria-label={`Notifications: ${unread.data ?? 0} unread`}
          >
            <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">
              <path
                fill="currentColor"
                d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-6V11a7 7 0 0 0-5.5-6.84V3.5a1.5 1.5 0 0 0-3 0v.66A7 7 0 0 0 5 11v5l-2 2v1h18v-1Z"
              />
            </svg>
            {unread.data ? <span className="badge">{unread.data}</span> : null}
          </NavLink>
          {organizations.length > 1 ? (
            <select
              aria-label="Organization"
              value={organization.id}
              onChange={(event) => switchTo(event.target.value)}
            >
              {organizations.map((item) => (
                <option key={item.id} value={item.id}>
                  {item.name}
                </option>
              ))}
            </select>
          ) : (
            <span className="org-name">{organization.name}</span>
          )}
          <span className="user-name" title={user.email}>
            {user.name}
          </span>
          <button
            type="button"
            className="link-button"
            onClick={() => signOut.mutate()}
            disabled={signOut.isPending}
          >
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </>
  );
}
