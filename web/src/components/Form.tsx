import type { FormEvent, InputHTMLAttributes, ReactNode } from 'react';
import { useId } from 'react';
import { errorMessage } from '../lib/api.ts';

/** A labelled input; the label is always visible and tied to the field. */
export function Field({
  label,
  hint,
  ...input
}: { label: string; hint?: ReactNode } & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} aria-describedby={hint ? `${id}-hint` : undefined} {...input} />
      {hint && (
        <small id={`${id}-hint`} className="hint">
          {hint}
        </small>
      )}
    </div>
  );
}

/** A failed submission, read out by screen readers as it appears. */
export function FormError({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p className="form-error" role="alert">
      {errorMessage(error)}
    </p>
  );
}

/** The centred card the signed-out pages share. */
export function AuthCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main id="main" className="auth-page">
      <div className="auth-card">
        <p className="brand">Knowledge Hub</p>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}

/** A select with its label beside it (a wrapping label would name it after its options too). */
export function InlineSelect({
  label,
  value,
  onChange,
  children,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <span className="inline">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(event) => onChange(event.target.value)}>
        {children}
      </select>
    </span>
  );
}

/** A form's submit handler: no page reload, then the action. */
export const submitWith = (action: () => void) => (event: FormEvent) => {
  event.preventDefault();
  action();
};

/** The email field of the sign-in, sign-up, reset and invitation forms. */
export function EmailField({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  return (
    <Field
      label="Email"
      type="email"
      autoComplete="email"
      required
      value={value}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}
