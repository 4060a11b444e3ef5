// The owners' plans, named once: the library format's `User.plan` holds one of them (any other value has no API access).
export const PLANS = ['free', 'paid'] as const;

export type Plan = (typeof PLANS)[number];

/** The plan that includes API access: API keys, following feeds, the MCP link. */
export const PAID_PLAN = 'paid' satisfies Plan;
