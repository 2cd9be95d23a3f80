import type { AppContext } from '../../context.ts';
import { localProvider } from './local-provider.ts';
import type { BillingProvider } from './provider.ts';
import { stripeProvider } from './stripe-provider.ts';

const providers = new WeakMap<AppContext['config'], BillingProvider>();

/** The configured provider (BILLING_PROVIDER), made once per configuration. */
export function billingProvider(context: AppContext): BillingProvider {
  const known = providers.get(context.config);
  if (known) return known;
  const { stripe } = context.config.billing;
  const provider = stripe ? stripeProvider(context, stripe) : localProvider(context);
  providers.set(context.config, provider);
  return provider;
}
