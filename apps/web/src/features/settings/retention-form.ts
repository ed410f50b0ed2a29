import {
  RETENTION_MAX,
  retentionKinds,
  type RetentionKind,
  type RetentionPeriod,
  type RetentionPolicy,
} from "@clinsign/contracts";

/** One kind's rule as the form holds it: the amount as typed. */
export interface RetentionRule {
  mode: "days" | "years" | "keep";
  amount: string;
}
export type RetentionFormState = Record<RetentionKind, RetentionRule>;
export type RetentionErrors = Partial<Record<RetentionKind, string>>;

const ruleOf = (period: RetentionPeriod | null): RetentionRule =>
  period ? { mode: period.unit, amount: String(period.amount) } : { mode: "keep", amount: "" };

export function retentionFormFrom(policy: RetentionPolicy): RetentionFormState {
  return Object.fromEntries(retentionKinds.map((kind) => [kind, ruleOf(policy[kind])])) as RetentionFormState;
}

/** The largest amount of a mode (the API's bound), for the input and its message. */
export const maxAmount = (mode: RetentionRule["mode"]) => (mode === "keep" ? 0 : RETENTION_MAX[mode]);

/** The kinds whose amount is not a whole number in range (the API would refuse them). */
export function invalidRetentionKinds(form: RetentionFormState): RetentionKind[] {
  return retentionKinds.filter((kind) => {
    const rule = form[kind];
    if (rule.mode === "keep") return false;
    const amount = rule.amount.trim();
    return !/^\d+$/.test(amount) || Number(amount) < 1 || Number(amount) > maxAmount(rule.mode);
  });
}

/** The whole policy, as `retention.updatePolicy` takes it. */
export function retentionPayload(form: RetentionFormState): RetentionPolicy {
  return Object.fromEntries(
    retentionKinds.map((kind) => {
      const rule = form[kind];
      return [kind, rule.mode === "keep" ? null : { amount: Number(rule.amount.trim()), unit: rule.mode }];
    }),
  ) as RetentionPolicy;
}
