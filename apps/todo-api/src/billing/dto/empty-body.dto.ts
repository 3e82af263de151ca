/** Documents a route that takes no body (an empty object is accepted). */
export class EmptyBodyDto {}
