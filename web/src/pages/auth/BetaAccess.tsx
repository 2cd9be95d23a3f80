import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import { AuthCard, EmailField, Field, FormError, submitWith } from '../../components/Form.tsx';
import { api, expectData } from '../../lib/api.ts';

/** Ask for access; an approval mails a link to /sign-up?email=…. */
export function BetaAccess() {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [company, setCompany] = useState('');
  const request = useMutation({
    mutationFn: async () =>
      expectData(
        await api.POST('/beta-access', {
          body: { email, ...(name ? { name } : {}), ...(company ? { company } : {}) },
        }),
      ),
  });
  const submit = submitWith(() => request.mutate());
  return (
    <AuthCard title="Request access">
      {request.isSuccess ? (
        <p className="notice" role="status">
          Thanks — we will mail {email} a link to create your account once your request is approved.
        </p>
      ) : (
        <form onSubmit={submit}>
          <EmailField value={email} onChange={setEmail} />
          <Field
            label="Name (optional)"
            autoComplete="name"
            value={name}
            onChange={(e) => setName(e.target.value)}
          />
          <Field
            label="Company (optional)"
            autoComplete="organization"
            value={company}
            onChange={(e) => setCompany(e.target.value)}
          />
          <FormError error={request.error} />
          <button type="submit" disabled={request.isPending}>
            Request access
          </button>
        </form>
      )}
      <p className="aside">
        <Link to="/sign-in">Back to sign in</Link>
      </p>
    </AuthCard>
  );
}
