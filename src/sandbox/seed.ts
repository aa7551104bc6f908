import {DEMO_BUSINESS_ID} from '../schemas/business.js'
import type {CreateDemandItem, Stage} from '../schemas/demand.js'
import {signingSecret} from './context.js'
import {createDemands, updateDemand} from './demands.js'
import {STORAGE_HOST} from './files.js'
import {newApiKey, newAuthToken, seedId} from './ids.js'
import type {Business} from './store/businesses.js'
import type {CustomerOption, Machine, Material, Product} from './store/catalog.js'
import type {Store} from './store/index.js'

/**
 * The sandbox's first-run data. Everything here is fixed, so two fresh sandboxes
 * hold the same businesses, catalogue and demands; only secrets (API keys, auth
 * tokens, the signing secret) are random, and they are kept in the database.
 */

const KIND = {business: 1, machine: 2, material: 3, option: 4, product: 5, demand: 6, gallery: 7} as const
const SEED_TIME = Date.UTC(2025, 0, 6, 9, 0, 0)
const DAY = 24 * 60 * 60 * 1000
/**
 * Files of seeded products and demands live on the storage host (reserved .test domain);
 * seed-files.ts stores real files under those links, reachable through signed links.
 */
export const SEED_FILE_HOST = STORAGE_HOST

// Fixed in the shared schemas (the CLI knows it without starting a sandbox); it has seedId's shape.
export {DEMO_BUSINESS_ID}
export const SECOND_BUSINESS_ID = seedId(KIND.business, 2)

export const BUSINESSES: readonly Omit<Business, 'authToken' | 'createdAt'>[] = [
  {
    id: DEMO_BUSINESS_ID,
    name: 'Demo Print & Machining',
    currency: 'EUR',
    webhookAccess: true,
    referral: 'api',
    position: 1,
  },
  {
    id: SECOND_BUSINESS_ID,
    name: 'Second Shop',
    currency: 'USD',
    webhookAccess: false,
    referral: 'api-second',
    position: 2,
  },
]

const m = (n: number) => seedId(KIND.machine, n)
const mat = (n: number) => seedId(KIND.material, n)
const biz = DEMO_BUSINESS_ID

export const MACHINES: readonly Machine[] = [
  {
    _id: m(1),
    business: biz,
    name: 'Prusa MK4 farm',
    service: '3D_PRINTING',
    technology: 'FDM',
    typeMachine: 'FDM',
    hourlyRate: 3.5,
    currency: 'EUR',
    startupCost: 2,
    minimumPrice: 8,
    technologyFactor: 1,
    marginMachine: 20,
    buildVolume: {width: 250, height: 220, depth: 210, unit: 'mm'},
    status: 'active',
  },
  {
    _id: m(2),
    business: biz,
    name: 'Formlabs Form 3+',
    service: '3D_PRINTING',
    technology: 'SLA',
    typeMachine: 'SLA',
    hourlyRate: 8,
    currency: 'EUR',
    startupCost: 8,
    minimumPrice: 12,
    technologyFactor: 1.1,
    marginMachine: 25,
    buildVolume: {width: 145, height: 185, depth: 145, unit: 'mm'},
    status: 'active',
  },
  {
    _id: m(3),
    business: biz,
    name: 'EOS Formiga P 110',
    service: '3D_PRINTING',
    technology: 'SLS',
    typeMachine: 'SLS',
    hourlyRate: 25,
    currency: 'EUR',
    startupCost: 20,
    minimumPrice: 25,
    technologyFactor: 1.2,
    marginMachine: 25,
    buildVolume: {width: 200, height: 330, depth: 250, unit: 'mm'},
    status: 'active',
  },
  {
    _id: m(4),
    business: biz,
    name: 'Haas VF-2',
    service: 'CNC_MACHINING',
    technology: 'CNC',
    typeMachine: 'CNC',
    hourlyRate: 65,
    currency: 'EUR',
    startupCost: 80,
    minimumPrice: 40,
    technologyFactor: 1.3,
    marginMachine: 30,
    buildVolume: {width: 762, height: 508, depth: 406, unit: 'mm'},
    status: 'active',
  },
  {
    _id: m(5),
    business: biz,
    name: 'Trumpf TruLaser 3030 + TruBend 5130',
    service: 'SHEET_METAL',
    technology: 'LASER',
    typeMachine: 'LASER',
    hourlyRate: 110,
    pricePerBend: 1.5,
    currency: 'EUR',
    startupCost: 45,
    minimumPrice: 20,
    technologyFactor: 1,
    marginMachine: 25,
    buildVolume: {width: 3000, height: 25, depth: 1500, unit: 'mm'},
    status: 'active',
  },
]

const colors = {
  fdm: [
    {name: 'Black', hex: '#000000'},
    {name: 'White', hex: '#FFFFFF'},
    {name: 'Signal Red', hex: '#C1121C'},
    {name: 'Grey', hex: '#808080'},
  ],
  resin: [
    {name: 'Grey', hex: '#9A9A9A'},
    {name: 'Clear', hex: '#F2F2F2'},
  ],
  sls: [
    {name: 'Natural White', hex: '#EDEAE0'},
    {name: 'Dyed Black', hex: '#1A1A1A'},
  ],
  metal: [{name: 'Raw', hex: '#B5B5B5'}],
}

function material(
  n: number,
  machine: Machine,
  fields: Pick<Material, 'materials' | 'type' | 'description' | 'price' | 'unit' | 'density' | 'colors' | 'factor'> & {
    thicknesses?: number[]
    startup?: number
  },
): Material {
  const {startup, ...rest} = fields
  return {
    _id: mat(n),
    business: biz,
    machine: machine._id,
    service: machine.service,
    technology: machine.technology,
    currency: 'EUR',
    startupCost: {price: startup ?? null, currency: 'EUR'},
    ...rest,
  }
}

const [fdm, sla, sls, cnc, sheet] = MACHINES as [Machine, Machine, Machine, Machine, Machine]
const g = (value: number) => ({value, unit: 'g/cm3' as const})

export const MATERIALS: readonly Material[] = [
  material(1, fdm, {
    materials: 'PLA',
    type: 'Thermoplastic',
    description: 'Easy, stiff, for prototypes and indoor parts',
    price: 25,
    unit: 'kg',
    density: g(1.24),
    colors: colors.fdm,
    factor: '1',
  }),
  material(2, fdm, {
    materials: 'PETG',
    type: 'Thermoplastic',
    description: 'Tough, food-safe grades, mild heat resistance',
    price: 28,
    unit: 'kg',
    density: g(1.27),
    colors: colors.fdm,
    factor: '1.05',
  }),
  material(3, fdm, {
    materials: 'ABS',
    type: 'Thermoplastic',
    description: 'Heat resistant to about 95 °C, can be vapour smoothed',
    price: 30,
    unit: 'kg',
    density: g(1.04),
    colors: colors.fdm,
    factor: '1.15',
  }),
  material(4, sla, {
    materials: 'Standard Resin',
    type: 'Photopolymer',
    description: 'Fine detail and smooth surfaces',
    price: 110,
    unit: 'l',
    density: g(1.15),
    colors: colors.resin,
    factor: '1',
  }),
  material(5, sls, {
    materials: 'PA12',
    type: 'Polyamide powder',
    description: 'Strong, functional nylon parts, no supports (powder 1.01 g/cm3)',
    price: 65,
    unit: 'kg',
    density: g(0.95),
    colors: colors.sls,
    factor: '1',
  }),
  material(6, cnc, {
    materials: 'Aluminium 6061',
    type: 'Aluminium alloy',
    description: 'Light, machines well, can be anodised',
    price: 8,
    unit: 'kg',
    density: g(2.7),
    colors: colors.metal,
    factor: '1',
    startup: 30,
  }),
  material(7, cnc, {
    materials: 'Steel S235',
    type: 'Structural steel',
    description: 'Cheap and strong, needs a coating against rust',
    price: 2,
    unit: 'kg',
    density: g(7.85),
    colors: colors.metal,
    factor: '1.4',
  }),
  material(8, cnc, {
    materials: 'Brass',
    type: 'Copper alloy',
    description: 'Free-machining CuZn39Pb3, decorative and conductive',
    price: 12,
    unit: 'kg',
    density: g(8.5),
    colors: colors.metal,
    factor: '1.1',
  }),
  material(9, sheet, {
    materials: 'Steel S235',
    type: 'Sheet steel',
    description: 'Laser cut and bent structural steel',
    price: 2,
    unit: 'kg',
    density: g(7.85),
    colors: colors.metal,
    factor: '1',
    thicknesses: [1, 1.5, 2, 3, 4, 5],
  }),
  material(10, sheet, {
    materials: 'Aluminium 5754',
    type: 'Sheet aluminium',
    description: 'Corrosion resistant, bends well',
    price: 7,
    unit: 'kg',
    density: g(2.66),
    colors: colors.metal,
    factor: '1',
    thicknesses: [1, 1.5, 2, 3],
  }),
]

const created = new Date(SEED_TIME).toISOString()
const printing: CustomerOption['services'] = ['3D_PRINTING']
const all: CustomerOption['services'] = ['3D_PRINTING', 'CNC_MACHINING', 'SHEET_METAL']
const o = (n: number) => seedId(KIND.option, n)

export const CUSTOMER_OPTIONS: readonly CustomerOption[] = [
  {
    _id: o(1),
    business: biz,
    refer: 'lead_time',
    name: 'Standard (7 working days)',
    type: 'price_multiplier',
    priceMultiplier: 1,
    isDeffault: true,
    days: 7,
    services: all,
    created,
  },
  {
    _id: o(2),
    business: biz,
    refer: 'lead_time',
    name: 'Express (3 working days)',
    type: 'price_multiplier',
    priceMultiplier: 1.5,
    isDeffault: false,
    days: 3,
    services: all,
    created,
  },
  {
    _id: o(3),
    business: biz,
    refer: 'lead_time',
    name: 'Economy (12 working days)',
    type: 'price_multiplier',
    priceMultiplier: 0.9,
    isDeffault: false,
    days: 12,
    services: all,
    created,
  },
  {
    _id: o(4),
    business: biz,
    refer: 'infill',
    name: '20 %',
    type: 'price_multiplier',
    priceMultiplier: 1,
    isDeffault: true,
    services: printing,
    created,
  },
  {
    _id: o(5),
    business: biz,
    refer: 'infill',
    name: '50 %',
    type: 'price_multiplier',
    priceMultiplier: 1.25,
    isDeffault: false,
    services: printing,
    created,
  },
  {
    _id: o(6),
    business: biz,
    refer: 'infill',
    name: '100 %',
    type: 'price_multiplier',
    priceMultiplier: 1.6,
    isDeffault: false,
    services: printing,
    created,
  },
  {
    _id: o(7),
    business: biz,
    refer: 'precision',
    name: 'Standard ±0.1 mm',
    type: 'percentage',
    percentage: 0,
    isDeffault: true,
    services: ['CNC_MACHINING', 'SHEET_METAL'],
    created,
  },
  {
    _id: o(8),
    business: biz,
    refer: 'precision',
    name: 'Fine ±0.05 mm',
    type: 'percentage',
    percentage: 15,
    isDeffault: false,
    services: ['CNC_MACHINING', 'SHEET_METAL'],
    created,
  },
  {
    _id: o(9),
    business: biz,
    refer: 'precision',
    name: 'High ±0.02 mm',
    type: 'percentage',
    percentage: 35,
    isDeffault: false,
    services: ['CNC_MACHINING'],
    created,
  },
  {
    _id: o(10),
    business: biz,
    refer: 'finishing',
    name: 'Sanding',
    type: 'fixedPrice',
    fixedPrice: {price: 5, currency: 'EUR'},
    isDeffault: false,
    services: printing,
    created,
  },
  {
    _id: o(11),
    business: biz,
    refer: 'finishing',
    name: 'Painting',
    type: 'fixedPrice',
    fixedPrice: {price: 12, currency: 'EUR'},
    isDeffault: false,
    services: all,
    created,
  },
  {
    _id: o(12),
    business: biz,
    refer: 'finishing',
    name: 'Anodising',
    type: 'percentage',
    percentage: 20,
    isDeffault: false,
    services: ['CNC_MACHINING', 'SHEET_METAL'],
    created,
  },
]

interface ProductSeed {
  title: string
  service: Product['service']
  category: string
  priceMachine: number
  priceConception: number
  priceExtra: number
  material: string
  materialType: string
  file: string
  tags: string[]
}

const PRODUCT_SEEDS: readonly ProductSeed[] = [
  {
    title: 'Cable clip set (10 pcs)',
    service: '3D_PRINTING',
    category: 'Mechanics',
    priceMachine: 4.5,
    priceConception: 0,
    priceExtra: 1.2,
    material: 'PLA',
    materialType: 'Thermoplastic',
    file: 'cable-clip.stl',
    tags: ['desk', 'cable'],
  },
  {
    title: 'Raspberry Pi 5 case',
    service: '3D_PRINTING',
    category: 'Electronics',
    priceMachine: 9,
    priceConception: 3,
    priceExtra: 2.8,
    material: 'PETG',
    materialType: 'Thermoplastic',
    file: 'rpi5-case.3mf',
    tags: ['raspberry-pi', 'enclosure'],
  },
  {
    title: 'Headphone stand',
    service: '3D_PRINTING',
    category: 'others',
    priceMachine: 14,
    priceConception: 0,
    priceExtra: 4.9,
    material: 'PLA',
    materialType: 'Thermoplastic',
    file: 'headphone-stand.stl',
    tags: ['desk'],
  },
  {
    title: 'Drone arm (5 inch)',
    service: '3D_PRINTING',
    category: 'Mechanics',
    priceMachine: 22,
    priceConception: 5,
    priceExtra: 3.1,
    material: 'PA12',
    materialType: 'Polyamide powder',
    file: 'drone-arm.stl',
    tags: ['drone', 'rc'],
  },
  {
    title: 'Architectural model base 20x20',
    service: '3D_PRINTING',
    category: 'Architecture',
    priceMachine: 35,
    priceConception: 10,
    priceExtra: 12,
    material: 'Standard Resin',
    materialType: 'Photopolymer',
    file: 'model-base.stl',
    tags: ['architecture'],
  },
  {
    title: 'GoPro mount adapter',
    service: '3D_PRINTING',
    category: 'Automotive',
    priceMachine: 6,
    priceConception: 0,
    priceExtra: 1,
    material: 'ABS',
    materialType: 'Thermoplastic',
    file: 'gopro-mount.stl',
    tags: ['camera', 'bike'],
  },
  {
    title: 'Aluminium heat sink 40x40',
    service: 'CNC_MACHINING',
    category: 'Electronics',
    priceMachine: 38,
    priceConception: 0,
    priceExtra: 2.2,
    material: 'Aluminium 6061',
    materialType: 'Aluminium alloy',
    file: 'heatsink-40.step',
    tags: ['cooling'],
  },
  {
    title: 'Brass knob M6',
    service: 'CNC_MACHINING',
    category: 'Mechanics',
    priceMachine: 16,
    priceConception: 0,
    priceExtra: 1.9,
    material: 'Brass',
    materialType: 'Copper alloy',
    file: 'knob-m6.step',
    tags: ['furniture'],
  },
  {
    title: 'Steel flange DN50',
    service: 'CNC_MACHINING',
    category: 'Mechanics',
    priceMachine: 45,
    priceConception: 8,
    priceExtra: 3.4,
    material: 'Steel S235',
    materialType: 'Structural steel',
    file: 'flange-dn50.step',
    tags: ['piping'],
  },
  {
    title: 'Wall shelf bracket',
    service: 'SHEET_METAL',
    category: 'Architecture',
    priceMachine: 7,
    priceConception: 0,
    priceExtra: 1.6,
    material: 'Steel S235',
    materialType: 'Sheet steel',
    file: 'shelf-bracket.dxf',
    tags: ['home'],
  },
  {
    title: 'Rack panel 1U',
    service: 'SHEET_METAL',
    category: 'Electronics',
    priceMachine: 18,
    priceConception: 4,
    priceExtra: 3.9,
    material: 'Aluminium 5754',
    materialType: 'Sheet aluminium',
    file: 'rack-panel-1u.dxf',
    tags: ['19-inch', 'rack'],
  },
  {
    title: 'Mounting plate 100x100x3',
    service: 'SHEET_METAL',
    category: 'Automotive',
    priceMachine: 9.5,
    priceConception: 0,
    priceExtra: 2.6,
    material: 'Steel S235',
    materialType: 'Sheet steel',
    file: 'mount-plate.dxf',
    tags: ['plate'],
  },
]

function ddmmyyyy(epoch: number): string {
  const iso = new Date(epoch).toISOString()
  return `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`
}

export const PRODUCTS: readonly {product: Product; createdAt: number}[] = PRODUCT_SEEDS.map((p, i) => {
  const createdAt = SEED_TIME - (30 - i) * DAY
  const unitPrice = Math.round((Number(p.priceMachine) + p.priceConception + p.priceExtra) * 100) / 100
  const url = `${SEED_FILE_HOST}/seed/products/${p.file}`
  const product: Product = {
    _id: seedId(KIND.product, i + 1),
    user: biz,
    type: 'PRODUCT',
    service: p.service,
    title: p.title,
    description: `${p.title}, made to order in ${p.material}.`,
    category: p.category,
    tags: p.tags,
    formats: [p.file.split('.').pop() ?? 'stl'],
    free: false,
    views: 40 + i * 17,
    likes: 3 + ((i * 7) % 23),
    price: {
      priceMachine: Number(p.priceMachine).toFixed(2),
      priceConception: p.priceConception,
      priceExtra: p.priceExtra,
    },
    materials: [{title: p.material, type: p.materialType, price: unitPrice, currency: 'EUR'}],
    models: [{price: unitPrice, free: false, originalname: p.file, files: [{originalname: p.file, url}]}],
    gallery: [
      {
        type: 'image',
        url: `${SEED_FILE_HOST}/seed/products/${p.file.replace(/\.\w+$/, '')}.png`,
        _id: seedId(KIND.gallery, i + 1),
      },
    ],
    createdAt: ddmmyyyy(createdAt),
    updatedAt: ddmmyyyy(createdAt + 2 * DAY),
  }
  return {product, createdAt}
})

interface DemandSeed {
  item: CreateDemandItem
  /** Stages to move through after creation, one day apart. */
  moves: Stage[]
  paid?: boolean
}

const customer = (first: string, last: string, city: string, country: string, zip: string) => ({
  firstName: first,
  lastName: last,
  email: `${first.toLowerCase()}.${last.toLowerCase()}@example.com`,
  phone: '+49 30 1234567',
  address: `${last}straße 12`,
  city,
  region: '',
  country,
  zip,
})

const part = (
  file: string,
  service: '3D_PRINTING' | 'CNC_MACHINING' | 'SHEET_METAL',
  technology: string,
  materialName: string,
  quantity: number,
  priceMachine: number,
  priceExtra: number,
  priceConception = 0,
) => ({
  fileName: file,
  fileLink: `${SEED_FILE_HOST}/seed/demands/${file}`,
  modelType: file.split('.').pop() ?? 'stl',
  viewerType: '3D' as const,
  unit: 'mm',
  service,
  technology,
  material: materialName,
  color: service === '3D_PRINTING' ? 'Black' : 'Raw',
  quantity,
  priceMachine: priceMachine.toFixed(2),
  priceConception,
  priceExtra,
  currency: 'EUR',
  priceCalculatorTool: 'default' as const,
})

export const DEMANDS: readonly DemandSeed[] = [
  {
    item: {
      draftId: 'seed-quote-sent',
      technique: '3D_PRINTING',
      ...customer('Anna', 'Keller', 'Berlin', 'DE', '10115'),
      quoteModel: [part('sensor-bracket.stl', '3D_PRINTING', 'FDM', 'PLA', 10, 1.8, 0.6)],
      priceDelivery: 6.9,
      jobDetails: {takenAs: 'QUOTE'},
    },
    moves: [],
  },
  {
    item: {
      draftId: 'seed-in-review',
      technique: '3D_PRINTING',
      ...customer('Luca', 'Bianchi', 'Milano', 'IT', '20121'),
      quoteModel: [part('miniature-knight.stl', '3D_PRINTING', 'SLA', 'Standard Resin', 4, 6.5, 2.4, 15)],
      priceDelivery: 8.5,
      jobDetails: {takenAs: 'QUOTE'},
    },
    moves: ['special_verified'],
  },
  {
    item: {
      draftId: 'seed-in-production',
      technique: 'CNC_MACHINING',
      ...customer('Marie', 'Dubois', 'Lyon', 'FR', '69001'),
      quoteModel: [part('gearbox-housing.step', 'CNC_MACHINING', 'CNC', 'Aluminium 6061', 2, 142, 9.8, 40)],
      priceDelivery: 15,
      tolerance: '0.05',
      jobDetails: {takenAs: 'ORDER'},
    },
    moves: ['special_verified', 'special_accepted'],
    paid: true,
  },
  {
    item: {
      draftId: 'seed-ready',
      technique: 'SHEET_METAL',
      ...customer('Jan', 'Novak', 'Praha', 'CZ', '11000'),
      quoteModel: [part('wall-bracket.dxf', 'SHEET_METAL', 'LASER', 'Steel S235', 25, 3.2, 1.1)],
      thickness: 3,
      priceDelivery: 12,
      jobDetails: {takenAs: 'ORDER'},
    },
    moves: ['special_verified', 'special_accepted', 'done'],
    paid: true,
  },
  {
    item: {
      draftId: 'seed-shipping',
      technique: '3D_PRINTING',
      ...customer('Sofia', 'Garcia', 'Madrid', 'ES', '28001'),
      quoteModel: [part('drone-frame.stl', '3D_PRINTING', 'SLS', 'PA12', 3, 18, 6.2)],
      priceDelivery: 9.9,
      jobDetails: {takenAs: 'ORDER'},
    },
    moves: ['special_verified', 'special_accepted', 'done', 'in_shipping'],
    paid: true,
  },
  {
    item: {
      draftId: 'seed-delivered',
      technique: 'CNC_MACHINING',
      ...customer('Tom', 'Baker', 'Leeds', 'GB', 'LS1 4AP'),
      quoteModel: [part('valve-knob.step', 'CNC_MACHINING', 'CNC', 'Brass', 12, 11.5, 1.9)],
      priceDelivery: 14,
      jobDetails: {takenAs: 'ORDER'},
    },
    moves: ['special_verified', 'special_accepted', 'done', 'in_shipping', 'delivered'],
    paid: true,
  },
  {
    item: {
      draftId: 'seed-cancelled',
      technique: '3D_PRINTING',
      ...customer('Eva', 'Lind', 'Malmö', 'SE', '21119'),
      quoteModel: [part('phone-stand.stl', '3D_PRINTING', 'FDM', 'PETG', 1, 5.5, 0.9)],
      jobDetails: {takenAs: 'QUOTE'},
    },
    moves: ['cancelled'],
  },
]

const SECOND_DEMANDS: readonly DemandSeed[] = [
  {
    item: {
      draftId: 'second-shop-quote',
      technique: '3D_PRINTING',
      ...customer('Ben', 'Carter', 'Austin', 'US', '78701'),
      quoteModel: [part('spacer.stl', '3D_PRINTING', 'FDM', 'PLA', 50, 0.4, 0.1)],
      currency: 'USD',
      jobDetails: {takenAs: 'QUOTE'},
    },
    moves: [],
  },
]

/** Seeds a fresh database in one transaction: businesses with new credentials, catalogue, demands. */
export function seed(store: Store): void {
  store.transaction(() => {
    const createdAt = new Date(SEED_TIME - 60 * DAY).toISOString()
    for (const b of BUSINESSES) {
      store.businesses.insert({...b, authToken: newAuthToken(), createdAt})
      store.businesses.addApiKey(newApiKey(), b.id, createdAt)
    }
    signingSecret(store)
    MACHINES.forEach((machine, i) => store.catalog.addMachine(machine, i + 1))
    MATERIALS.forEach((material, i) => store.catalog.addMaterial(material, i + 1))
    CUSTOMER_OPTIONS.forEach((option, i) => store.catalog.addOption(option, i + 1))
    for (const {product, createdAt: at} of PRODUCTS) store.catalog.addProduct(product, at)

    let n = 0
    const ids = () => seedId(KIND.demand, ++n)
    const seedDemands = (businessId: string, demands: readonly DemandSeed[]) => {
      const business = store.businesses.byId(businessId)
      if (!business) throw new Error(`seed business ${businessId} missing`)
      demands.forEach((d, i) => {
        let now = SEED_TIME + i * 2 * DAY
        const doc = createDemands({store, business, now, newId: ids}, [d.item])[0]?.doc
        if (!doc) throw new Error('seed demand not created')
        if (d.paid)
          updateDemand({store, business, now: (now += 60 * 60 * 1000), newId: ids}, doc._id, {
            paymentStatus: 'PAID',
            paymentProvider: 'BANK_TRANSFER',
          })
        for (const stage of d.moves) {
          now += DAY
          updateDemand({store, business, now, newId: ids}, doc._id, {demandStatusInfo: {status: stage}})
        }
      })
    }
    seedDemands(DEMO_BUSINESS_ID, DEMANDS)
    seedDemands(SECOND_BUSINESS_ID, SECOND_DEMANDS)
  })
}
