export * from './errors.js'
export * from './paths.js'
export * from './store.js'
export {ENV_OVERRIDES, resolveProfile, type ResolvedProfile} from './resolve.js'
