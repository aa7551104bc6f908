import {scalar, transaction, type SqlDatabase} from './sql.js'

/**
 * The sandbox database, as versioned migrations. Migration N (1-based) moves the
 * database from `PRAGMA user_version` N-1 to N; a database is never migrated down.
 * Append new migrations at the end; never edit one that has shipped.
 */
export const MIGRATIONS: readonly string[] = [
  /* 1: walking skeleton */ `
  CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );

  CREATE TABLE businesses (
    id             TEXT PRIMARY KEY,
    name           TEXT NOT NULL,
    currency       TEXT NOT NULL,
    webhook_access INTEGER NOT NULL,
    referral       TEXT NOT NULL,
    auth_token     TEXT NOT NULL UNIQUE,
    position       INTEGER NOT NULL,
    created_at     TEXT NOT NULL
  );

  CREATE TABLE api_keys (
    key         TEXT PRIMARY KEY,
    business_id TEXT NOT NULL REFERENCES businesses(id),
    created_at  TEXT NOT NULL
  );
  CREATE INDEX api_keys_business ON api_keys(business_id);

  CREATE TABLE machines (
    id          TEXT PRIMARY KEY,
    business_id TEXT NOT NULL REFERENCES businesses(id),
    position    INTEGER NOT NULL,
    doc         TEXT NOT NULL
  );
  CREATE INDEX machines_business ON machines(business_id, position);

  CREATE TABLE materials (
    id          TEXT PRIMARY KEY,
    business_id TEXT NOT NULL REFERENCES businesses(id),
    machine_id  TEXT NOT NULL REFERENCES machines(id),
    position    INTEGER NOT NULL,
    doc         TEXT NOT NULL
  );
  CREATE INDEX materials_business ON materials(business_id, position);
  CREATE INDEX materials_machine ON materials(machine_id);

  CREATE TABLE customer_options (
    id          TEXT PRIMARY KEY,
    business_id TEXT NOT NULL REFERENCES businesses(id),
    position    INTEGER NOT NULL,
    doc         TEXT NOT NULL
  );
  CREATE INDEX customer_options_business ON customer_options(business_id, position);

  CREATE TABLE products (
    id          TEXT PRIMARY KEY,
    business_id TEXT NOT NULL REFERENCES businesses(id),
    service     TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    doc         TEXT NOT NULL
  );
  CREATE INDEX products_business ON products(business_id, created_at);

  CREATE TABLE demands (
    id           TEXT PRIMARY KEY,
    business_id  TEXT NOT NULL REFERENCES businesses(id),
    order_number INTEGER NOT NULL,
    taken_as     TEXT NOT NULL,
    status       TEXT NOT NULL,
    draft_id     TEXT,
    archived     INTEGER NOT NULL,
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    doc          TEXT NOT NULL
  );
  CREATE UNIQUE INDEX demands_order_number ON demands(business_id, order_number);
  CREATE UNIQUE INDEX demands_draft ON demands(business_id, draft_id) WHERE draft_id IS NOT NULL;
  CREATE INDEX demands_list ON demands(business_id, archived, created_at, order_number);
  CREATE INDEX demands_list_taken_as ON demands(business_id, taken_as, archived, created_at, order_number);
  CREATE INDEX demands_list_status ON demands(business_id, status, archived, created_at, order_number);

  CREATE TABLE idempotency_keys (
    business_id  TEXT NOT NULL,
    key          TEXT NOT NULL,
    fingerprint  TEXT NOT NULL,
    status_code  INTEGER NOT NULL,
    body         TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    PRIMARY KEY (business_id, key)
  );
  CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);

  CREATE TABLE webhooks (
    id          TEXT PRIMARY KEY,
    business_id TEXT NOT NULL REFERENCES businesses(id),
    url         TEXT NOT NULL,
    secret      TEXT NOT NULL,
    events      TEXT NOT NULL,
    use_secret  INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
  );
  CREATE INDEX webhooks_business ON webhooks(business_id, created_at);
  `,
  /* 2: draftId uniqueness moves from the index to the create logic, so a sandbox
        started without replay can store duplicates like a server without idempotency help */ `
  DROP INDEX demands_draft;
  CREATE INDEX demands_draft ON demands(business_id, draft_id, created_at, order_number) WHERE draft_id IS NOT NULL;
  `,
  /* 3: legacy price estimations used per business and UTC day (store/allowance.ts) */ `
  CREATE TABLE estimation_allowance (
    business_id TEXT NOT NULL,
    day         TEXT NOT NULL,
    used        INTEGER NOT NULL,
    PRIMARY KEY (business_id, day)
  );
  `,
  /* 4: products editable through the API (soft delete), the file store, signed-link grants,
        webhook events with their per-subscription delivery queue and attempt log */ `
  ALTER TABLE products ADD COLUMN updated_at INTEGER;
  ALTER TABLE products ADD COLUMN deleted_at INTEGER;
  CREATE INDEX products_active ON products(business_id, deleted_at, created_at);

  CREATE TABLE files (
    key           TEXT PRIMARY KEY,
    business_id   TEXT NOT NULL REFERENCES businesses(id),
    blob          TEXT NOT NULL UNIQUE,
    original_name TEXT NOT NULL,
    content_type  TEXT NOT NULL,
    size          INTEGER NOT NULL,
    created_at    INTEGER NOT NULL
  );
  CREATE INDEX files_business ON files(business_id, created_at);

  CREATE TABLE file_grants (
    signature TEXT PRIMARY KEY,
    key       TEXT NOT NULL,
    expires   INTEGER NOT NULL
  );
  CREATE INDEX file_grants_expires ON file_grants(expires);

  CREATE TABLE events (
    id          TEXT PRIMARY KEY,
    business_id TEXT NOT NULL REFERENCES businesses(id),
    type        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    body        TEXT NOT NULL
  );

  CREATE TABLE deliveries (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    webhook_id      TEXT NOT NULL REFERENCES webhooks(id),
    event_id        TEXT NOT NULL REFERENCES events(id),
    status          TEXT NOT NULL,
    attempts        INTEGER NOT NULL,
    next_attempt_at INTEGER,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
  );
  CREATE INDEX deliveries_queue ON deliveries(webhook_id, status, seq);
  CREATE INDEX deliveries_pending ON deliveries(status, webhook_id);

  CREATE TABLE delivery_attempts (
    delivery_id TEXT NOT NULL REFERENCES deliveries(id),
    attempt     INTEGER NOT NULL,
    started_at  INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    status_code INTEGER,
    error       TEXT,
    PRIMARY KEY (delivery_id, attempt)
  );
  `,
]

export const SCHEMA_VERSION = MIGRATIONS.length

/** `PRAGMA user_version`: the number of migrations applied to the database. */
export function schemaVersion(db: SqlDatabase): number {
  return Number(scalar(db, 'PRAGMA user_version'))
}

/**
 * Applies the migrations the database has not seen yet, each in its own
 * transaction. Several processes may open a new file at once: each migration
 * takes the write lock first and reads the version again under it, so a
 * migration another process applied meanwhile is not applied twice.
 */
export function migrate(db: SqlDatabase): void {
  let current = schemaVersion(db)
  while (current !== SCHEMA_VERSION) {
    if (current > SCHEMA_VERSION) {
      throw new Error(
        `The sandbox database has schema version ${current}, newer than this program's ${SCHEMA_VERSION}; run \`mfg sandbox reset\` or upgrade mfg.`,
      )
    }
    current = transaction(
      db,
      () => {
        const version = schemaVersion(db)
        if (version >= SCHEMA_VERSION) return version
        db.exec(MIGRATIONS[version] as string)
        db.exec(`PRAGMA user_version = ${version + 1}`)
        return version + 1
      },
      'immediate',
    )
  }
}
