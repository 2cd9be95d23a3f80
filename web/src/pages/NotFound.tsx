import { Link } from 'react-router';
import { AuthCard } from '../components/Form.tsx';

export function NotFound() {
  return (
    <AuthCard title="Page not found">
      <p>There is no page at this address. It may have moved, or the link may be incomplete.</p>
      <p>
        <Link to="/">Go to the home page</Link>
      </p>
    </AuthCard>
  );
}
