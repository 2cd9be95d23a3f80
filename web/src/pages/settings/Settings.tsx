import { NavLink, Outlet } from 'react-router';

const SECTIONS = [
  { to: '/settings', label: 'Account' },
  { to: '/settings/organization', label: 'Organization' },
  { to: '/settings/billing', label: 'Billing' },
  { to: '/settings/integrations', label: 'Integrations' },
];

export function Settings() {
  return (
    <div className="page">
      <header className="page-header">
        <h1>Settings</h1>
        <nav aria-label="Settings">
          <ul className="tabs">
            {SECTIONS.map((section) => (
              <li key={section.to}>
                <NavLink to={section.to} end>
                  {section.label}
                </NavLink>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <Outlet />
    </div>
  );
}
