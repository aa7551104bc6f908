import type {ApiClient} from '../api/http.js'

/** What a use case needs: the shared client, and the business it acts for. */
export interface ServiceContext {
  client: ApiClient
  businessId: string
  /**
   * A stable name of the service the client talks to, for keys that must survive
   * between runs (batch journals). The base URL, except for the embedded sandbox,
   * whose port changes every run: there it names the sandbox's data directory.
   */
  target?: string
}
