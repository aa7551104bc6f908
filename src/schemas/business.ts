import * as z from 'zod'

/**
 * The id of the sandbox's demo business, the one the embedded sandbox acts for
 * when no profile names another: fixed, so the CLI knows it before (or without)
 * starting the sandbox.
 */
export const DEMO_BUSINESS_ID = '65f000010000000000000001'

/** Seeded credentials a sandbox reports (`mfg sandbox serve --json`). */
export const SandboxBusiness = z.object({
  id: z.string(),
  name: z.string(),
  apiKey: z.string(),
  authToken: z.string(),
  webhookAccess: z.boolean(),
})
export type SandboxBusiness = z.infer<typeof SandboxBusiness>
