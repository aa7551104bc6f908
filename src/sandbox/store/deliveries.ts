import {transaction, type SqlDatabase, type SqlStatement} from './sql.js'

/** An event as stored: its JSON body is kept byte for byte, so every attempt sends the same bytes. */
export interface StoredEvent {
  id: string
  businessId: string
  type: string
  createdAt: number
  body: string
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed'

/** One event queued for one subscription. */
export interface DeliveryRow {
  seq: number
  id: string
  webhookId: string
  eventId: string
  status: DeliveryStatus
  attempts: number
  nextAttemptAt: number | null
  createdAt: number
  updatedAt: number
}

export interface AttemptRow {
  deliveryId: string
  attempt: number
  startedAt: number
  durationMs: number
  statusCode: number | null
  error: string | null
}

interface RawDelivery {
  seq: number
  id: string
  webhook_id: string
  event_id: string
  status: DeliveryStatus
  attempts: number
  next_attempt_at: number | null
  created_at: number
  updated_at: number
}

const deliveryOf = (row: RawDelivery): DeliveryRow => ({
  seq: row.seq,
  id: row.id,
  webhookId: row.webhook_id,
  eventId: row.event_id,
  status: row.status,
  attempts: row.attempts,
  nextAttemptAt: row.next_attempt_at,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

interface RawAttempt {
  delivery_id: string
  attempt: number
  started_at: number
  duration_ms: number
  status_code: number | null
  error: string | null
}

/**
 * Webhook events and the delivery queue: one row per (event, subscription), in
 * `seq` order. The head of a subscription's queue is its oldest pending delivery;
 * later ones wait until it is delivered or given up (failed).
 */
export class DeliveryStore {
  private readonly insertEvent: SqlStatement
  private readonly selectEvent: SqlStatement
  private readonly insertDelivery: SqlStatement
  private readonly selectHeads: SqlStatement
  private readonly selectHead: SqlStatement
  private readonly recordResult: SqlStatement
  private readonly insertAttempt: SqlStatement
  private readonly selectByWebhook: SqlStatement
  private readonly selectByWebhookBefore: SqlStatement
  private readonly selectSeq: SqlStatement
  private readonly selectAttempts: SqlStatement
  private readonly selectWaiting: SqlStatement
  private readonly reschedule: SqlStatement
  private readonly listeners = new Set<() => void>()

  constructor(private readonly db: SqlDatabase) {
    this.insertEvent = db.prepare('INSERT INTO events (id, business_id, type, created_at, body) VALUES (?, ?, ?, ?, ?)')
    this.selectEvent = db.prepare('SELECT id, business_id, type, created_at, body FROM events WHERE id = ?')
    this.insertDelivery = db.prepare(`INSERT INTO deliveries
      (id, webhook_id, event_id, status, attempts, next_attempt_at, created_at, updated_at)
      VALUES (?, ?, ?, 'pending', 0, NULL, ?, ?)`)
    this.selectHeads = db.prepare(`SELECT d.* FROM deliveries d
      JOIN (SELECT webhook_id, MIN(seq) AS seq FROM deliveries WHERE status = 'pending' GROUP BY webhook_id) h
      ON d.seq = h.seq ORDER BY d.seq`)
    this.selectHead = db.prepare(
      "SELECT * FROM deliveries WHERE webhook_id = ? AND status = 'pending' ORDER BY seq LIMIT 1",
    )
    // Several processes may share the file (CLIs sharing one embedded home) and try the
    // same delivery at once: the first to log an attempt number wins, the others are dropped.
    this.recordResult = db.prepare(
      'UPDATE deliveries SET status = ?, attempts = ?, next_attempt_at = ?, updated_at = ? WHERE id = ? AND attempts < ?',
    )
    this.insertAttempt = db.prepare(`INSERT OR IGNORE INTO delivery_attempts
      (delivery_id, attempt, started_at, duration_ms, status_code, error) VALUES (?, ?, ?, ?, ?, ?)`)
    this.selectByWebhook = db.prepare('SELECT * FROM deliveries WHERE webhook_id = ? ORDER BY seq DESC LIMIT ?')
    this.selectByWebhookBefore = db.prepare(
      'SELECT * FROM deliveries WHERE webhook_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?',
    )
    this.selectSeq = db.prepare('SELECT seq FROM deliveries WHERE webhook_id = ? AND id = ?')
    this.selectAttempts = db.prepare('SELECT * FROM delivery_attempts WHERE delivery_id = ? ORDER BY attempt')
    this.selectWaiting = db.prepare(
      "SELECT id, attempts, next_attempt_at FROM deliveries WHERE status = 'pending' AND next_attempt_at IS NOT NULL",
    )
    this.reschedule = db.prepare('UPDATE deliveries SET next_attempt_at = ? WHERE id = ? AND next_attempt_at > ?')
  }

  /**
   * On start: every delivery waiting for a retry keeps its time, but waits no later than
   * `latest(attempts)`, so a sandbox restarted with a shorter back-off retries sooner.
   */
  resume(latest: (attempts: number) => number): void {
    const waiting = this.selectWaiting.all() as {id: string; attempts: number; next_attempt_at: number}[]
    const late = waiting.filter((row) => row.next_attempt_at > latest(row.attempts))
    if (late.length === 0) return
    transaction(this.db, () => {
      for (const row of late) this.reschedule.run(latest(row.attempts), row.id, latest(row.attempts))
    })
  }

  /** Called (synchronously, inside the writer's transaction) whenever a delivery is queued. */
  onEnqueue(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Stores an event and queues it for each subscription, due at once (`now` is the sandbox clock). */
  enqueue(event: StoredEvent, deliveries: {id: string; webhookId: string}[], now: number): void {
    if (deliveries.length === 0) return
    transaction(this.db, () => {
      this.insertEvent.run(event.id, event.businessId, event.type, event.createdAt, event.body)
      for (const d of deliveries) this.insertDelivery.run(d.id, d.webhookId, event.id, now, now)
    })
    for (const listener of this.listeners) listener()
  }

  event(id: string): StoredEvent | undefined {
    const row = this.selectEvent.get(id) as
      {id: string; business_id: string; type: string; created_at: number; body: string} | undefined
    return row && {id: row.id, businessId: row.business_id, type: row.type, createdAt: row.created_at, body: row.body}
  }

  /** The oldest pending delivery of every subscription that has one. */
  heads(): DeliveryRow[] {
    return (this.selectHeads.all() as RawDelivery[]).map(deliveryOf)
  }

  head(webhookId: string): DeliveryRow | undefined {
    const row = this.selectHead.get(webhookId) as RawDelivery | undefined
    return row && deliveryOf(row)
  }

  /** Logs an attempt and moves the delivery on (delivered, failed, or pending until `nextAttemptAt`). */
  record(
    delivery: DeliveryRow,
    attempt: AttemptRow,
    status: DeliveryStatus,
    nextAttemptAt: number | null,
    now: number,
  ): void {
    transaction(this.db, () => {
      this.insertAttempt.run(
        attempt.deliveryId,
        attempt.attempt,
        attempt.startedAt,
        attempt.durationMs,
        attempt.statusCode,
        attempt.error,
      )
      this.recordResult.run(status, attempt.attempt, nextAttemptAt, now, delivery.id, attempt.attempt)
    })
  }

  /**
   * The latest `limit` deliveries of a subscription, newest first; with `before` (a
   * delivery id of that subscription) the ones queued before it. Undefined when `before`
   * is not one of its deliveries.
   */
  byWebhook(webhookId: string, limit: number, before?: string): DeliveryRow[] | undefined {
    if (before === undefined) return (this.selectByWebhook.all(webhookId, limit) as RawDelivery[]).map(deliveryOf)
    const cursor = this.selectSeq.get(webhookId, before) as {seq: number} | undefined
    if (!cursor) return undefined
    return (this.selectByWebhookBefore.all(webhookId, cursor.seq, limit) as RawDelivery[]).map(deliveryOf)
  }

  attempts(deliveryId: string): AttemptRow[] {
    return (this.selectAttempts.all(deliveryId) as RawAttempt[]).map((row) => ({
      deliveryId: row.delivery_id,
      attempt: row.attempt,
      startedAt: row.started_at,
      durationMs: row.duration_ms,
      statusCode: row.status_code,
      error: row.error,
    }))
  }
}
