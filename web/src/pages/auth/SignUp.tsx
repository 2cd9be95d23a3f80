import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { AuthCard, EmailField, Field, FormError, submitWith } from '../../components/Form.tsx';
import { api, expectData } from '../../lib/api.ts';
import { safeNext } from '../../lib/navigation.ts';
import { useSessionChanged } from '../../lib/session.tsx';
import { OAuthButtons } from './SignIn.tsx';

/** The sign-up form; an invitation's token makes the new account join that organization. */
export function SignUpForm({
  invitationToken,
  email: givenEmail = '',
}: {
  invitationToken?: string;
  email?: string;
}) {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const sessionChanged = useSessionChanged();
  const [name, setName] = useState('');
  const [email, setEmail] = useState(givenEmail);
  const [password, setPassword] = useState('');
  const signUp = useMutation({
    mutationFn: async () =>
      expectData(await api.POST('/auth/sign-up', { body: { name, email, password, invitationToken } })),
    onSuccess: async () => {
      await sessionChanged();
      navigate(invitationToken ? '/library' : safeNext(params.get('next')), { replace: true });
    },
  });
  const submit = submitWith(() => signUp.mutate());
  return (
    <form onSubmit={submit}>
      <Field
        label="Name"
        autoComplete="name"
        required
        maxLength={100}
        value={name}
        onChange={(e) => setName(e.target.value)}
      />
      <EmailField value={email} onChange={setEmail} />
      <Field
        label="Password"
        type="password"
        autoComplete="new-password"
        required
        minLength={8}
        hint="At least 8 characters."
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      <FormError error={signUp.error} />
      <button type="submit" disabled={signUp.isPending}>
        {signUp.isPending ? 'Creating your account…' : 'Create account'}
      </button>
    </form>
  );
}

export function SignUp() {
  const [params] = useSearchParams();
  const next = params.get('next');
  return (
    <AuthCard title="Create your account">
      <SignUpForm email={params.get('email') ?? ''} />
      <OAuthButtons />
      <p className="aside">
        Already have an account?{' '}
        <Link to={next ? `/sign-in?next=${encodeURIComponent(next)}` : '/sign-in'}>Sign in</Link>
      </p>
    </AuthCard>
  );
}
