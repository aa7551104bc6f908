import {createHmac, randomBytes} from 'node:crypto'

let counter = randomBytes(3).readUIntBE(0, 3)
const processPart = randomBytes(5).toString('hex')

/**
 * A new 24-hex id shaped like the service's (Mongo ObjectId): creation time in
 * seconds, a per-process random part, an increasing counter.
 */
export function newId(now = Date.now()): string {
  counter = (counter + 1) % 0x1000000
  return (
    Math.floor(now / 1000)
      .toString(16)
      .padStart(8, '0') +
    processPart +
    counter.toString(16).padStart(6, '0')
  )
}

/** The fixed id of seeded entity `n` of kind `kind` (both small integers). */
export function seedId(kind: number, n: number): string {
  return '65f0' + kind.toString(16).padStart(4, '0') + n.toString(16).padStart(16, '0')
}

/** A random url-safe secret of `bytes` bytes. */
export function randomSecret(bytes = 24): string {
  return randomBytes(bytes).toString('base64url')
}

export function newApiKey(): string {
  return `pk_business_${randomBytes(24).toString('hex')}`
}

export function newAuthToken(): string {
  return `at_${randomSecret(32)}`
}

/**
 * The payment authorisation token of a demand: a JWT-shaped value signed with the
 * sandbox's secret. Deterministic per demand, so a replayed create answers the same.
 */
export function paymentAuthToken(secret: string, businessId: string, demandId: string, orderNumber: number): string {
  const header = Buffer.from(JSON.stringify({alg: 'HS256', typ: 'JWT'})).toString('base64url')
  const payload = Buffer.from(
    JSON.stringify({sub: demandId, business: businessId, orderNumber, scope: 'payment'}),
  ).toString('base64url')
  const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url')
  return `${header}.${payload}.${signature}`
}
