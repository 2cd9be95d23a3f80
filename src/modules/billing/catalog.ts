import type { Config } from '../../config.ts';
import type { BillingInterval } from '../../db/schema/billing.ts';

export const PLAN_IDS = ['free', 'pro', 'business'] as const;
export type PlanId = (typeof PLAN_IDS)[number];

export type Plan = {
  id: PlanId;
  name: string;
  description: string;
  /** Price of one period, in minor units of `currency` (per seat when `perSeat`). */
  prices: Record<BillingInterval, number>;
  currency: string;
  perSeat: boolean;
  limits: {
    /** Free: the members an organization may have. Paid: the most seats one subscription may buy. */
    seats: number;
    /** Videos an organization may keep (soft-deleted ones do not count); null: no limit. */
    videos: number | null;
    storageGb: number;
    aiCreditsPerMonth: number;
  };
  features: string[];
};

/**
 * The plans an organization can be on — the one place prices and limits are defined. The free
 * plan's members, videos and AI credits come from the configuration, so that an operator who runs
 * the service for their own team can raise them.
 */
export function planCatalog(config: Pick<Config, 'billing' | 'aiMonthlyCredits'>): Plan[] {
  const { currency } = config.billing;
  return [
    {
      id: 'free',
      name: 'Free',
      description: 'For a small team trying out a shared memory of its meetings.',
      prices: { month: 0, year: 0 },
      currency,
      perSeat: false,
      limits: {
        seats: config.billing.freeSeats,
        videos: config.billing.freeVideos,
        storageGb: 5,
        aiCreditsPerMonth: config.aiMonthlyCredits,
      },
      features: [
        'Transcript search to the second',
        'Questions answered with citations',
        'Collections and clips',
      ],
    },
    {
      id: 'pro',
      name: 'Pro',
      description: 'For teams that run on their meetings: more videos, more AI, as many seats as you buy.',
      prices: { month: 1500, year: 15000 },
      currency,
      perSeat: true,
      limits: { seats: 200, videos: 10_000, storageGb: 200, aiCreditsPerMonth: 20_000 },
      features: ['Everything in Free', 'Knowledge gaps and conflicting decisions', 'Summaries and insights'],
    },
    {
      id: 'business',
      name: 'Business',
      description: 'For companies: no video limit, the most AI credits, priority support.',
      prices: { month: 3000, year: 30000 },
      currency,
      perSeat: true,
      limits: { seats: 5000, videos: null, storageGb: 2000, aiCreditsPerMonth: 100_000 },
      features: ['Everything in Pro', 'Speaker analytics', 'Priority support'],
    },
  ];
}

export function findPlan(config: Pick<Config, 'billing' | 'aiMonthlyCredits'>, planId: string) {
  return planCatalog(config).find((plan) => plan.id === planId);
}

export function freePlan(config: Pick<Config, 'billing' | 'aiMonthlyCredits'>): Plan {
  return planCatalog(config)[0] as Plan;
}
