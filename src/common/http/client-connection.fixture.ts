import { ClientDisconnectedError } from '../errors/client-disconnected.error';
import type { ClientConnection } from './client-connection';

/** A ClientConnection for unit tests: the client leaves when the test calls `leave()`. */
export interface ManualClientConnection extends ClientConnection {
  leave(): ClientDisconnectedError;
  /** Listeners still registered with onLost. */
  readonly listening: number;
}

export function manualClientConnection(): ManualClientConnection {
  const listeners = new Set<(reason: ClientDisconnectedError) => void>();
  const connection = {
    lostReason: undefined as ClientDisconnectedError | undefined,
    onLost(listener: (reason: ClientDisconnectedError) => void) {
      if (connection.lostReason) return () => undefined;
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    leave() {
      const reason = new ClientDisconnectedError();
      connection.lostReason = reason;
      for (const listener of [...listeners]) listener(reason);
      listeners.clear();
      return reason;
    },
    get listening() {
      return listeners.size;
    },
  };
  return connection;
}
