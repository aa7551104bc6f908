import {transaction, type SqlDatabase, type SqlStatement} from './sql.js'

/** Legacy price estimations per business per UTC day (contract, Limits: sandbox setting). */
export const DAILY_ESTIMATION_ALLOWANCE = 100

/** The UTC day of an epoch-ms time, `YYYY-MM-DD`. */
export function utcDay(now: number): string {
  return new Date(now).toISOString().slice(0, 10)
}

/** Whole seconds from `now` to the next UTC midnight (at least 1). */
export function secondsToUtcMidnight(now: number): number {
  const d = new Date(now)
  const next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)
  return Math.max(1, Math.ceil((next - now) / 1000))
}

/** Counts legacy estimations per business and UTC day. */
export class AllowanceStore {
  private readonly select: SqlStatement
  private readonly add: SqlStatement

  constructor(private readonly db: SqlDatabase) {
    this.select = db.prepare('SELECT used FROM estimation_allowance WHERE business_id = ? AND day = ?')
    this.add = db.prepare(`INSERT INTO estimation_allowance (business_id, day, used) VALUES (?, ?, ?)
      ON CONFLICT(business_id, day) DO UPDATE SET used = used + excluded.used`)
  }

  /** Estimations used on that day. */
  used(businessId: string, day: string): number {
    return (this.select.get(businessId, day) as {used: number} | undefined)?.used ?? 0
  }

  /**
   * Takes `count` estimations from the day's allowance `limit`, atomically: all of
   * them or none. Answers whether it did and how many are left afterwards.
   */
  take(businessId: string, day: string, count: number, limit: number): {ok: boolean; remaining: number} {
    return transaction(
      this.db,
      () => {
        const used = this.used(businessId, day)
        if (used + count > limit) return {ok: false, remaining: Math.max(0, limit - used)}
        this.add.run(businessId, day, count)
        return {ok: true, remaining: limit - used - count}
      },
      'immediate',
    )
  }
}
