export * from './errors.js'
export * from './http.js'
export * from './paginate.js'
