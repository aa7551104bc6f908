import {getDemand as fetchDemand} from '../../api/v1/demands.js'
import type {ServiceContext} from '../context.js'
import type {DemandRecord} from '../../schemas/read/types.js'

export function getDemand(ctx: Pick<ServiceContext, 'client'>, id: string): Promise<DemandRecord> {
  return fetchDemand(ctx.client, id)
}
