// Names of the limit counters, relative to the store's prefix. The `{…}` part is a Redis Cluster
// hash tag: all counters of one virtual key hash to one slot, so one script may touch several.

export function requestCounterKey(throttlerName: string, tracker: string): string {
  return `limits:{${tracker}}:${throttlerName}`;
}

export function tokensPerMinuteCounterKey(keyId: string): string {
  return `limits:{${keyId}}:tpm`;
}

export function budgetCounterKey(keyId: string, periodId: string): string {
  return `limits:{${keyId}}:budget:${periodId}`;
}

/** A key's dollar budget, in nano-dollars (docs/spend.md). */
export function spendCounterKey(keyId: string, periodId: string): string {
  return `limits:{${keyId}}:spend:${periodId}`;
}

/** A team's budgets; the team id is the hash tag, so a team's counters share a slot. */
export function teamBudgetCounterKey(teamId: string, periodId: string): string {
  return `limits:{team:${teamId}}:budget:${periodId}`;
}

export function teamSpendCounterKey(teamId: string, periodId: string): string {
  return `limits:{team:${teamId}}:spend:${periodId}`;
}
