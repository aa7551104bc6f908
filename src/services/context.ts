import type {ApiClient} from '../api/http.js'

/** What a use case needs: the shared client, and the business it acts for. */
export interface ServiceContext {
  client: ApiClient
  businessId: string
}
