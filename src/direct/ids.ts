// The ids of the direct commands (src/direct), in a file of their own: the help
// renderer (src/help/fast.ts, built alone) finds them by these, and src/direct's
// table of commands is typed by them, so the two cannot drift apart.
export const DIRECT_COMMANDS = ['price:measure'] as const

export type DirectId = (typeof DIRECT_COMMANDS)[number]
