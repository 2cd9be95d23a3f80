import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createContext, type ReactNode, useContext, useMemo, useState } from 'react';
import { Navigate, useLocation } from 'react-router';
import { ErrorState, Loading } from '../components/States.tsx';
import { api, expectData, type Schemas } from './api.ts';

type Session = { user: Schemas['AuthUser'] };

/** The signed-in person, or null; a 401 is an answer here, not an error. */
export function useSession() {
  return useQuery({
    queryKey: ['session'],
    queryFn: async (): Promise<Session | null> => {
      const result = await api.GET('/auth/session');
      if (result.response.status === 401) return null;
      return expectData(result).data;
    },
    staleTime: 60_000,
  });
}

/** After signing in or out: everything cached belonged to the previous person. */
export function useSessionChanged() {
  const queryClient = useQueryClient();
  return () => queryClient.resetQueries();
}

type OrganizationContext = {
  user: Schemas['AuthUser'];
  organizations: Schemas['Organization'][];
  organization: Schemas['Organization'];
  switchTo(id: string): void;
};

const Current = createContext<OrganizationContext | null>(null);
const STORAGE_KEY = 'kh.organization';

/** Pages below see the signed-in user and the organization chosen in the switcher. */
export function RequireSession({ children }: { children: ReactNode }) {
  const location = useLocation();
  const session = useSession();
  const organizations = useQuery({
    queryKey: ['organizations'],
    enabled: Boolean(session.data),
    queryFn: async () =>
      expectData(await api.GET('/organizations', { params: { query: { limit: 100 } } })).data,
  });
  const [chosen, setChosen] = useState(() => localStorage.getItem(STORAGE_KEY));
  const value = useMemo(() => {
    const user = session.data?.user;
    const list = organizations.data;
    if (!user || !list || list.length === 0) return null;
    const organization =
      list.find((item) => item.id === chosen) ??
      list.find((item) => item.id === user.defaultOrganizationId) ??
      (list[0] as Schemas['Organization']);
    return {
      user,
      organizations: list,
      organization,
      switchTo: (id: string) => {
        localStorage.setItem(STORAGE_KEY, id);
        setChosen(id);
      },
    };
  }, [session.data, organizations.data, chosen]);

  if (session.isPending) return <Loading label="Signing you in" />;
  if (session.isError) return <ErrorState error={session.error} retry={() => session.refetch()} />;
  if (!session.data) {
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={`/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }
  if (organizations.isError)
    return <ErrorState error={organizations.error} retry={() => organizations.refetch()} />;
  if (!value) return <Loading label="Loading your organizations" />;
  return <Current.Provider value={value}>{children}</Current.Provider>;
}

export function useCurrent(): OrganizationContext {
  const value = useContext(Current);
  if (!value) throw new Error('useCurrent() is used outside <RequireSession>');
  return value;
}
