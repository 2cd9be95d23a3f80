import type { RouteObject } from 'react-router';
import { Layout } from './components/Layout.tsx';
import { RequireSession } from './lib/session.tsx';
import { Activity } from './pages/Activity.tsx';
import { Analytics } from './pages/Analytics.tsx';
import { Ask } from './pages/Ask.tsx';
import { BetaAccess } from './pages/auth/BetaAccess.tsx';
import { Invitation } from './pages/auth/Invitation.tsx';
import { ResetPassword } from './pages/auth/ResetPassword.tsx';
import { SignIn } from './pages/auth/SignIn.tsx';
import { SignUp } from './pages/auth/SignUp.tsx';
import { Collection } from './pages/Collection.tsx';
import { Home } from './pages/Home.tsx';
import { Knowledge } from './pages/Knowledge.tsx';
import { Library } from './pages/Library.tsx';
import { Meeting } from './pages/meeting/Meeting.tsx';
import { NotFound } from './pages/NotFound.tsx';
import { Notifications } from './pages/Notifications.tsx';
import { Search } from './pages/Search.tsx';
import { Series } from './pages/Series.tsx';
import { SharedMeeting } from './pages/SharedMeeting.tsx';
import { Account } from './pages/settings/Account.tsx';
import { Billing } from './pages/settings/Billing.tsx';
import { Integrations } from './pages/settings/Integrations.tsx';
import { Organization } from './pages/settings/Organization.tsx';
import { Settings } from './pages/settings/Settings.tsx';

/** Every page of the app. Paths follow the API's (a link to /videos/{id} opens that meeting). */
export const routes: RouteObject[] = [
  { path: '/sign-in', element: <SignIn /> },
  { path: '/sign-up', element: <SignUp /> },
  { path: '/reset-password', element: <ResetPassword /> },
  { path: '/invitations/:token', element: <Invitation /> },
  { path: '/beta', element: <BetaAccess /> },
  { path: '/share/:token', element: <SharedMeeting /> },
  {
    element: (
      <RequireSession>
        <Layout />
      </RequireSession>
    ),
    children: [
      { path: '/', element: <Home /> },
      { path: '/library', element: <Library /> },
      { path: '/videos/:id', element: <Meeting /> },
      { path: '/search', element: <Search /> },
      { path: '/ask', element: <Ask /> },
      { path: '/knowledge', element: <Knowledge /> },
      { path: '/collections/:id', element: <Collection /> },
      { path: '/series/:id', element: <Series /> },
      { path: '/notifications', element: <Notifications /> },
      { path: '/analytics', element: <Analytics /> },
      { path: '/activity', element: <Activity /> },
      {
        path: '/settings',
        element: <Settings />,
        children: [
          { index: true, element: <Account /> },
          { path: 'organization', element: <Organization /> },
          { path: 'billing', element: <Billing /> },
          { path: 'integrations', element: <Integrations /> },
        ],
      },
    ],
  },
  { path: '*', element: <NotFound /> },
];
