import { Injectable } from '@nestjs/common';

/** The Postgres channel on which key changes are announced to every gateway instance. */
export const KEY_CHANGE_CHANNEL = 'virtual_key_changed';

export type KeyChangeListener = (keyId: string) => void;

/**
 * In-process announcements of key changes (revoke, rotate, update, seed), so the instance that
 * made a change forgets its cached copy at once. Other instances hear of it through Postgres
 * (KEY_CHANGE_CHANNEL); this bus never depends on that round trip.
 */
@Injectable()
export class VirtualKeyEvents {
  private readonly listeners = new Set<KeyChangeListener>();

  subscribe(listener: KeyChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(keyId: string): void {
    for (const listener of this.listeners) listener(keyId);
  }
}
