import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { AuthCard, EmailField, Field, FormError, submitWith } from '../../components/Form.tsx';
import { api, expectData } from '../../lib/api.ts';
import { safeNext } from '../../lib/navigation.ts';
import { useSessionChanged } from '../../lib/session.tsx';

/** Which sign-in providers the service has configured: their start URL redirects, others answer 404. */
function useOAuthProviders() {
  return useQuery({
    queryKey: ['oauth-providers'],
    staleTime: Number.POSITIVE_INFINITY,
    queryFn: async () => {
      const configured = await Promise.all(
        (['github', 'google'] as const).map(async (provider) => {
          const response = await fetch(`/auth/${provider}`, { redirect: 'manual' }).catch(() => null);
          return response?.type === 'opaqueredirect' ? provider : null;
        }),
      );
      return configured.filter((provider) => provider !== null);
    },
  });
}

export function OAuthButtons() {
  const providers = useOAuthProviders();
  if (!providers.data?.length) return null;
  return (
    <div className="oauth">
      {providers.data.map((provider) => (
        <a key={provider} className="button secondary" href={`/auth/${provider}`}>
          Continue with {provider === 'github' ? 'GitHub' : 'Google'}
        </a>
      ))}
    </div>
  );
}

export function SignIn() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const sessionChanged = useSessionChanged();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signIn = useMutation({
    mutationFn: async () => expectData(await api.POST('/auth/sign-in', { body: { email, password } })),
    onSuccess: async () => {
      await sessionChanged();
      navigate(safeNext(params.get('next')), { replace: true });
    },
  });
  const submit = submitWith(() => signIn.mutate());
  const next = params.get('next');

  return (
    <AuthCard title="Sign in">
      {params.get('reset') === 'done' && (
        <p className="notice">Your password is changed. Sign in with the new one.</p>
      )}
      <form onSubmit={submit}>
        <EmailField value={email} onChange={setEmail} />
        <Field
          label="Password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
        <FormError error={signIn.error} />
        <button type="submit" disabled={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <OAuthButtons />
      <p className="aside">
        <Link to="/reset-password">Forgot your password?</Link>
      </p>
      <p className="aside">
        New here?{' '}
        <Link to={next ? `/sign-up?next=${encodeURIComponent(next)}` : '/sign-up'}>Create an account</Link> or{' '}
        <Link to="/beta">request access</Link>.
      </p>
    </AuthCard>
  );
}
