import * as z from 'zod'

/** Seeded credentials a sandbox reports (`mfg sandbox serve --json`). */
export const SandboxBusiness = z.object({
  id: z.string(),
  name: z.string(),
  apiKey: z.string(),
  authToken: z.string(),
  webhookAccess: z.boolean(),
})
export type SandboxBusiness = z.infer<typeof SandboxBusiness>
