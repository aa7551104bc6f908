import * as z from 'zod'

import {issuesToDetails, type ErrorDetail} from '../schemas/common.js'
import {
  CreateLegacyDemandBody,
  LEGACY_UPDATE_FIELDS,
  LegacyListBody,
  LegacyUpdateBody,
  MAX_LEGACY_BATCH,
  ProductOrderBody,
  type CreateLegacyDemandItem,
  type Lang,
  type ProductOrderItem,
} from '../schemas/legacy-demand.js'
import type {Stage} from '../schemas/demand.js'
import {
  applyUpdate,
  checkBusinessField,
  createInput,
  insertDemands,
  labelOf,
  REPORT_INPUT,
  validateBatch,
  type CreateOutcome,
  type DemandContext,
  type UpdateOutcome,
} from './demands.js'
import {badRequest, conflict, notFound} from './errors.js'
import {normalizeCurrency} from '../schemas/common.js'
import {isPlainObject, type DemandInput} from './records.js'
import type {Business} from './store/businesses.js'
import type {Product} from './store/catalog.js'
import type {DemandDoc} from './store/demands.js'
import type {Store} from './store/index.js'

/** Use cases of the legacy v2 demand interface, over the same demands and stage machine as v1. */

/** Validates a whole create-demands body; throws a 400 listing every invalid item. */
export function validateLegacyCreateBody(body: unknown, business: Business): CreateLegacyDemandItem[] {
  if (Array.isArray(body)) {
    body.forEach((item, i) => {
      checkBusinessField(item, business, `Item ${i}`)
      // The demand's manufacturer is the key's business.
      if (isPlainObject(item) && typeof item.machineOwner === 'string' && item.machineOwner !== business.id) {
        checkBusinessField({business: item.machineOwner}, business, `Item ${i} (machineOwner)`)
      }
    })
  }
  return validateBatch(body, {
    endpoint: 'create-demands',
    noun: 'demands',
    schema: CreateLegacyDemandBody,
    max: MAX_LEGACY_BATCH,
  })
}

/** The stored input of a create-demands item: the v1 field names, so both generations read it alike. */
function legacyInput(
  item: CreateLegacyDemandItem,
  business: Business,
  materialNames: Map<string, string>,
  ids: () => string,
): DemandInput {
  const {status: _status, priceToMachineOwner, ...fields} = item
  const input = createInput(fields, business, ids)
  if (input.priceToMachnieOwner === undefined && priceToMachineOwner !== undefined)
    input.priceToMachnieOwner = priceToMachineOwner
  if (typeof input.tolerance === 'number') input.tolerance = String(input.tolerance)
  if (typeof input.tolerance === 'string') input.tolerance = input.tolerance.trim()
  if (input.priceDelivery === undefined && typeof item.shippingMethod?.price === 'number')
    input.priceDelivery = item.shippingMethod.price
  // quoteModel[].material is a catalogue id; the demand's material reads as its name.
  const firstMaterial = item.quoteModel?.[0]?.material
  if (input.material === undefined && firstMaterial !== undefined) {
    const name = materialNames.get(firstMaterial)
    if (name) input.material = name
  }
  return input
}

/** Creates validated create-demands items (one transaction; draftId replay as v1). */
export function createLegacyDemands(ctx: DemandContext, items: CreateLegacyDemandItem[]): CreateOutcome[] {
  const materialNames = new Map(ctx.store.catalog.materials(ctx.business.id).map((m) => [m._id, m.materials]))
  return insertDemands(ctx, items, (item, ids) => ({
    input: legacyInput(item, ctx.business, materialNames, ids),
    takenAs: item.jobDetails?.takenAs ?? 'QUOTE',
    client: item.client,
  }))
}

// ---------------------------------------------------------------- by-product orders

/** Display text of a created order, in the request's `lang`. */
const ORDER_MESSAGES: Record<Lang, (orderNumber: number, title: string) => string> = {
  en: (n, title) => `Order #${n} placed for ${title}.`,
  fr: (n, title) => `Commande n° ${n} passée pour ${title}.`,
  de: (n, title) => `Bestellung Nr. ${n} für ${title} aufgegeben.`,
  es: (n, title) => `Pedido n.º ${n} realizado para ${title}.`,
}

export function orderMessage(lang: Lang, orderNumber: number, title: string): string {
  return ORDER_MESSAGES[lang](orderNumber, title)
}

export interface ProductOrder {
  item: ProductOrderItem
  product: Product
}

const REFERRAL_MESSAGE = 'is not valid for this business; send the referral value given for the business exactly'

/**
 * Validates a by-product order body: the schema and the referral of every item
 * (400), then the products (404, another business's product reads as unknown),
 * then the materials (400). Nothing is created unless every item passes.
 */
export function validateProductOrders(store: Store, business: Business, body: unknown): ProductOrder[] {
  const items = validateBatch(body, {
    endpoint: 'by-product order',
    noun: 'orders',
    schema: ProductOrderBody,
    max: MAX_LEGACY_BATCH,
    extra: (raw, i) =>
      isPlainObject(raw) && typeof raw.referral === 'string' && raw.referral !== business.referral
        ? [{path: `${i}.referral`, message: REFERRAL_MESSAGE}]
        : [],
    summary: (details, bad) =>
      details.every((d) => d.path.endsWith('.referral'))
        ? `The referral is not valid for this business (item${bad.length === 1 ? '' : 's'} ${bad.join(', ')}); nothing was created.`
        : undefined,
  })
  const orders: ProductOrder[] = []
  const missing: string[] = []
  items.forEach((item, i) => {
    const product = store.catalog.product(business.id, item.productId)
    if (product) orders.push({item, product})
    else missing.push(`${item.productId} (item ${i})`)
  })
  if (missing.length > 0) {
    throw notFound(
      `Product${missing.length === 1 ? '' : 's'} ${missing.join(', ')} not found for this business; nothing was created.`,
    )
  }
  const details: ErrorDetail[] = []
  orders.forEach(({item, product}, i) => {
    if (item.material !== undefined && !materialOf(product, item.material)) {
      details.push({
        path: `${i}.material`,
        message: `must be one of the product's materials: ${product.materials.map((m) => JSON.stringify(m.title)).join(', ')}`,
      })
    }
  })
  if (details.length > 0) {
    throw badRequest(`${details.length} of ${items.length} orders name a material the product does not offer.`, details)
  }
  return orders
}

function materialOf(product: Product, name: string): Product['materials'][number] | undefined {
  const wanted = name.trim().toLowerCase()
  return product.materials.find((m) => m.title.toLowerCase() === wanted)
}

const CLIENT_CONTACT = ['firstName', 'lastName', 'email', 'phone', 'companyName'] as const
const CLIENT_ADDRESS = ['address', 'city', 'region', 'country', 'zip'] as const

function productOrderInput(
  {item, product}: ProductOrder,
  business: Business,
  lang: Lang,
  ids: () => string,
): DemandInput {
  const material = (item.material !== undefined ? materialOf(product, item.material) : undefined) ??
    product.materials[0] ?? {title: '', type: '', price: 0, currency: business.currency}
  const model = product.models[0]
  const file = model?.files[0]
  const quantity = item.quantity ?? 1
  const fileName = file?.originalname ?? model?.originalname ?? ''
  const input: DemandInput = {
    technique: product.service,
    material: material.title,
    quantity,
    type: 'product_sale',
    post: product._id,
    productId: product._id,
    lang,
    currency: normalizeCurrency(material.currency) ?? business.currency,
    jobDetails: {takenAs: 'ORDER'},
    quoteModel: [
      {
        _id: ids(),
        position: 0,
        fileName,
        fileLink: file?.url ?? '',
        modelType: fileName.split('.').pop() ?? '',
        service: product.service,
        material: material.title,
        ...(item.color !== undefined ? {color: item.color} : {}),
        quantity,
        priceMachine: product.price.priceMachine,
        priceConception: product.price.priceConception,
        priceExtra: product.price.priceExtra,
        currency: material.currency,
      },
    ],
  }
  for (const key of ['color', 'resolution', 'filling', 'thickness', 'draftId', 'shippingMethod'] as const) {
    if (item[key] !== undefined) input[key] = item[key]
  }
  if (item.tolerance !== undefined) input.tolerance = String(item.tolerance).trim()
  if (item.shippingMethod?.price !== undefined) input.priceDelivery = item.shippingMethod.price
  if (item.shippingAddress) input.shippingAddress = item.shippingAddress
  if (item.clientInfo) {
    input.clientInfo = item.clientInfo
    for (const key of [...CLIENT_CONTACT, ...CLIENT_ADDRESS]) {
      const value = item.clientInfo[key]
      if (typeof value === 'string') input[key] = value
    }
  }
  return input
}

/** Creates validated by-product orders: demands taken as ORDER, linked to their product. */
export function createProductOrders(ctx: DemandContext, orders: ProductOrder[], lang: Lang): CreateOutcome[] {
  return insertDemands(
    ctx,
    orders.map((order) => ({...order, draftId: order.item.draftId})),
    (order, ids) => ({
      input: productOrderInput(order, ctx.business, lang, ids),
      takenAs: 'ORDER',
      client: order.item.clientInfo?._id,
      productId: order.product._id,
    }),
  )
}

// ---------------------------------------------------------------- list, update, delete

/**
 * The demands of a legacy list body, in the requested order. Ids that are unknown
 * or belong to another business are left out; a repeated id is answered once.
 */
export function listLegacyDemands(store: Store, business: Business, body: unknown): DemandDoc[] {
  const parsed = LegacyListBody.safeParse(body, REPORT_INPUT)
  if (!parsed.success) {
    const details = issuesToDetails(parsed.error)
    throw badRequest(
      `The body must be {"demands": [...]} with 1 to 500 demand ids (${details.map((d) => `${d.path || 'body'} ${d.message}`).join('; ')}).`,
      details,
    )
  }
  const ids = [...new Set(parsed.data.demands)]
  const found = store.demands.byIds(business.id, ids)
  return ids.flatMap((id) => found.get(id) ?? [])
}

export interface LegacyUpdateOutcome extends UpdateOutcome {
  /** The fields the request changed, as the legacy record shows them. */
  fields: string[]
}

/** A legacy update: the eight fields of the interface, under v1's stage and frozen-field rules. */
export function updateLegacyDemand(ctx: DemandContext, id: string, body: unknown): LegacyUpdateOutcome {
  const allowed = LEGACY_UPDATE_FIELDS.join(', ')
  if (!isPlainObject(body)) {
    throw badRequest(`The body must be a JSON object with any of ${allowed}.`, [
      {path: '', message: 'must be an object'},
    ])
  }
  const parsed = LegacyUpdateBody.safeParse(body, REPORT_INPUT)
  if (!parsed.success) {
    // One detail per unknown field, at its own path.
    const details = parsed.error.issues.flatMap((issue) =>
      issue.code === 'unrecognized_keys' && issue.path.length === 0
        ? issue.keys.map((key) => ({path: key, message: 'is not a field of the legacy update'}))
        : issuesToDetails(new z.ZodError([issue])),
    )
    throw badRequest(
      `The update is invalid (${details.map((d) => d.path || 'body').join(', ')}); the legacy update accepts ${allowed}.`,
      details,
    )
  }
  const patch: DemandInput = {}
  for (const [key, value] of Object.entries(parsed.data)) if (value !== undefined) patch[key] = value
  const fields = Object.keys(patch)
  if (fields.length === 0) throw badRequest(`The update changes nothing: send any of ${allowed}.`)
  if (patch.tolerance !== undefined) patch.tolerance = String(patch.tolerance).trim()
  return {...applyUpdate(ctx, id, patch), fields}
}

/** Stages a legacy DELETE accepts: before production. */
export const DELETABLE_STAGES: readonly Stage[] = ['quote_sent', 'special_verified']

/** Legacy DELETE: moves the demand to cancelled and archives it; nothing is erased. */
export function cancelLegacyDemand(ctx: DemandContext, id: string): UpdateOutcome {
  return applyUpdate(ctx, id, {demandStatusInfo: {status: 'cancelled'}, archive: true}, (previous) => {
    const stage = previous.demandStatusInfo.status
    if (stage === 'cancelled') throw conflict(`${labelOf(previous)} is already cancelled; there is nothing to delete.`)
    if (!DELETABLE_STAGES.includes(stage)) {
      throw conflict(
        `${labelOf(previous)} cannot be deleted: it cannot move from ${stage} to cancelled; only demands in ${DELETABLE_STAGES.join(' or ')} can be deleted (cancelled).`,
      )
    }
  })
}
