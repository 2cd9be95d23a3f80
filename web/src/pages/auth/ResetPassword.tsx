import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { AuthCard, EmailField, Field, FormError, submitWith } from '../../components/Form.tsx';
import { api, expectData } from '../../lib/api.ts';

function RequestReset() {
  const [email, setEmail] = useState('');
  const request = useMutation({
    mutationFn: async () => expectData(await api.POST('/auth/reset-password', { body: { email } })),
  });
  const submit = submitWith(() => request.mutate());
  if (request.isSuccess) {
    return (
      <p className="notice" role="status">
        If an account uses {email}, a link to choose a new password is on its way. It works for one hour.
      </p>
    );
  }
  return (
    <form onSubmit={submit}>
      <EmailField value={email} onChange={setEmail} />
      <FormError error={request.error} />
      <button type="submit" disabled={request.isPending}>
        Send the link
      </button>
    </form>
  );
}

function ChooseNewPassword({ token }: { token: string }) {
  const navigate = useNavigate();
  const [password, setPassword] = useState('');
  const confirm = useMutation({
    mutationFn: async () =>
      expectData(await api.POST('/auth/reset-password/confirm', { body: { token, password } })),
    onSuccess: () => navigate('/sign-in?reset=done', { replace: true }),
  });
  const submit = submitWith(() => confirm.mutate());
  return (
    <form onSubmit={submit}>
      <Field
        label="New password"
        type="password"
        autoComplete="new-password"
        required
        minLength={8}
        hint="At least 8 characters. You will be signed out everywhere else."
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      <FormError error={confirm.error} />
      <button type="submit" disabled={confirm.isPending}>
        Change password
      </button>
    </form>
  );
}

/** `/reset-password` asks for the mail; `/reset-password?token=…` (the mailed link) sets the password. */
export function ResetPassword() {
  const [params] = useSearchParams();
  const token = params.get('token');
  return (
    <AuthCard title={token ? 'Choose a new password' : 'Reset your password'}>
      {token ? <ChooseNewPassword token={token} /> : <RequestReset />}
      <p className="aside">
        <Link to="/sign-in">Back to sign in</Link>
      </p>
    </AuthCard>
  );
}
