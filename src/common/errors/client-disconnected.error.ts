/** The reason an upstream call is aborted when the client goes away; nothing is answered. */
export class ClientDisconnectedError extends Error {
  constructor() {
    super('The client closed the connection');
    this.name = 'ClientDisconnectedError';
  }
}
