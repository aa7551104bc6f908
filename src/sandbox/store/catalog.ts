import type {SqlDatabase, SqlStatement} from './sql.js'

/** A machine of a business, with the rates the pricing engine uses. */
export interface Machine {
  _id: string
  business: string
  name: string
  service: '3D_PRINTING' | 'CNC_MACHINING' | 'SHEET_METAL'
  /** FDM, SLA, SLS, CNC or LASER. */
  technology: string
  typeMachine: string
  /** Machine time, in `currency` per hour. */
  hourlyRate: number
  /** Sheet metal: price of one bend. */
  pricePerBend?: number
  currency: string
  /** Once per order. */
  startupCost: number
  /** Minimum price of one part. */
  minimumPrice: number
  technologyFactor: number
  marginMachine: number
  buildVolume: {width: number; height: number; depth: number; unit: 'mm'}
  status: 'active' | 'inactive'
}

/** A material offered on one machine (shape of the v1 price estimation `material`). */
export interface Material {
  _id: string
  business: string
  machine: string
  service: Machine['service']
  technology: string
  materials: string
  type: string
  description: string
  /** Price per `unit` in `currency`. */
  price: number
  unit: 'kg' | 'l'
  currency: string
  density: {value: number; unit: 'g/cm3'}
  startupCost: {price: number | null; currency: string}
  colors: {name: string; hex: string}[]
  factor: string
  /** Sheet metal: thicknesses in stock, mm. */
  thicknesses?: number[]
}

/** A choice offered to customers (lead time, infill, precision...). */
export interface CustomerOption {
  _id: string
  business: string
  refer: string
  name: string
  type: 'price_multiplier' | 'fixedPrice' | 'percentage'
  priceMultiplier?: number
  fixedPrice?: {price: number; currency: string}
  percentage?: number
  isDeffault: boolean
  /** Extra lead-time days (lead_time options). */
  days?: number
  services: Machine['service'][]
  created: string
}

/** A catalogue product (legacy post of type PRODUCT). */
export interface Product {
  _id: string
  user: string
  type: 'PRODUCT'
  service: Machine['service']
  title: string
  description: string
  category: string
  tags: string[]
  formats: string[]
  free: boolean
  views: number
  likes: number
  price: {priceMachine: string; priceConception: number; priceExtra: number}
  materials: {title: string; type: string; price: number; currency: string}[]
  models: {price: number; free: boolean; originalname: string; files: {originalname: string; url: string}[]}[]
  gallery: {type: string; url: string; _id: string}[]
  createdAt: string
  updatedAt: string
}

/** Machines, materials, customer options and products of each business (deleted products left out). */
export class CatalogStore {
  private readonly insertMachine: SqlStatement
  private readonly insertMaterial: SqlStatement
  private readonly insertOption: SqlStatement
  private readonly insertProduct: SqlStatement
  private readonly selectMachines: SqlStatement
  private readonly selectMaterials: SqlStatement
  private readonly selectOptions: SqlStatement
  private readonly selectProducts: SqlStatement
  private readonly selectProduct: SqlStatement

  constructor(db: SqlDatabase) {
    this.insertMachine = db.prepare('INSERT INTO machines (id, business_id, position, doc) VALUES (?, ?, ?, ?)')
    this.insertMaterial = db.prepare(
      'INSERT INTO materials (id, business_id, machine_id, position, doc) VALUES (?, ?, ?, ?, ?)',
    )
    this.insertOption = db.prepare('INSERT INTO customer_options (id, business_id, position, doc) VALUES (?, ?, ?, ?)')
    this.insertProduct = db.prepare(
      'INSERT INTO products (id, business_id, service, created_at, doc) VALUES (?, ?, ?, ?, ?)',
    )
    this.selectMachines = db.prepare('SELECT doc FROM machines WHERE business_id = ? ORDER BY position')
    this.selectMaterials = db.prepare('SELECT doc FROM materials WHERE business_id = ? ORDER BY position')
    this.selectOptions = db.prepare('SELECT doc FROM customer_options WHERE business_id = ? ORDER BY position')
    this.selectProducts = db.prepare(
      'SELECT doc FROM products WHERE business_id = ? AND deleted_at IS NULL ORDER BY created_at, id',
    )
    this.selectProduct = db.prepare('SELECT doc FROM products WHERE business_id = ? AND id = ? AND deleted_at IS NULL')
  }

  addMachine(machine: Machine, position: number): void {
    this.insertMachine.run(machine._id, machine.business, position, JSON.stringify(machine))
  }

  addMaterial(material: Material, position: number): void {
    this.insertMaterial.run(material._id, material.business, material.machine, position, JSON.stringify(material))
  }

  addOption(option: CustomerOption, position: number): void {
    this.insertOption.run(option._id, option.business, position, JSON.stringify(option))
  }

  /** `createdAt` is the product's creation time in epoch ms (the doc carries DD/MM/YYYY). */
  addProduct(product: Product, createdAt: number): void {
    this.insertProduct.run(product._id, product.user, product.service, createdAt, JSON.stringify(product))
  }

  machines(businessId: string): Machine[] {
    return docs<Machine>(this.selectMachines.all(businessId))
  }

  materials(businessId: string): Material[] {
    return docs<Material>(this.selectMaterials.all(businessId))
  }

  options(businessId: string): CustomerOption[] {
    return docs<CustomerOption>(this.selectOptions.all(businessId))
  }

  products(businessId: string): Product[] {
    return docs<Product>(this.selectProducts.all(businessId))
  }

  /** A product of this business; another business's id reads as unknown. */
  product(businessId: string, id: string): Product | undefined {
    const row = this.selectProduct.get(businessId, id) as {doc: string} | undefined
    return row && (JSON.parse(row.doc) as Product)
  }
}

function docs<T>(rows: unknown[]): T[] {
  return (rows as {doc: string}[]).map((r) => JSON.parse(r.doc) as T)
}
