import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { AuthCard, FormError } from '../../components/Form.tsx';
import { Loading } from '../../components/States.tsx';
import { api, expectData } from '../../lib/api.ts';
import { useSession } from '../../lib/session.tsx';
import { SignUpForm } from './SignUp.tsx';

/** The mailed link: join the organization, after signing up or in as the invited email. */
export function Invitation() {
  const { token = '' } = useParams();
  const session = useSession();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const accept = useMutation({
    mutationFn: async () =>
      expectData(await api.POST('/invitations/{token}/accept', { params: { path: { token } } })),
    onSuccess: async (membership) => {
      localStorage.setItem('kh.organization', membership.organizationId);
      await queryClient.invalidateQueries({ queryKey: ['organizations'] });
      navigate('/library', { replace: true });
    },
  });
  const here = `/invitations/${encodeURIComponent(token)}`;

  if (session.isPending) return <Loading />;
  if (session.data) {
    return (
      <AuthCard title="You are invited">
        <p>
          Join the organization as <strong>{session.data.user.email}</strong>. The invitation must have been
          sent to this address.
        </p>
        <FormError error={accept.error} />
        <button type="button" onClick={() => accept.mutate()} disabled={accept.isPending}>
          Join the organization
        </button>
        <p className="aside">
          Not you? <Link to={`/sign-in?next=${encodeURIComponent(here)}`}>Sign in as someone else</Link>
        </p>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="You are invited">
      <p>Create your account with the email the invitation was sent to, and you join right away.</p>
      <SignUpForm invitationToken={token} />
      <p className="aside">
        Already have an account?{' '}
        <Link to={`/sign-in?next=${encodeURIComponent(here)}`}>Sign in to accept</Link>
      </p>
    </AuthCard>
  );
}
