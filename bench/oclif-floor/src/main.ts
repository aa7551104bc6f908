// The floor's oclif entry: oclif's own execute, from the bundle's copy of @oclif/core.
export {execute} from '@oclif/core'
